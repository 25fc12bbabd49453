/** Tags strings (pt, the source of the keys). Registered in lib/i18n/locales/pt.ts. */
const tags = {
  tags: {
    title: 'Tags',
    search: 'Pesquisar tags...',
    add: 'Adicionar tag',
    addTitle: 'Adicionar tag',
    editTitle: 'Editar tag',
    name: 'Nome',
    color: 'Cor',
    kanban: 'Kanban',
    actions: 'Ações',
    empty: 'Nenhuma tag encontrada.',
    saved: 'Tag salva com sucesso!',
    deleted: 'Tag excluída com sucesso!',
    deleteTitle: 'Excluir a tag {{name}}?',
    deleteText: 'A tag será removida de todos os contatos e atendimentos.',
    tooShort: 'Tag muito curta!',
  },
};

export default tags;
