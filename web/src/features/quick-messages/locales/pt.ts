/** Quick messages strings (pt, the source of the keys). Registered in lib/i18n/locales/pt.ts. */
const quickMessages = {
  quickMessages: {
    title: 'Respostas Rápidas',
    search: 'Pesquisar...',
    add: 'Adicionar',
    addTitle: 'Adicionar resposta rápida',
    editTitle: 'Editar resposta rápida',
    shortcode: 'Atalho',
    message: 'Resposta',
    media: 'Arquivo',
    noMedia: 'Sem anexo',
    geral: 'Global',
    actions: 'Ações',
    attach: 'Anexar arquivo',
    removeFile: 'Remover arquivo',
    readOnly: 'Somente o dono pode editar esta resposta privada.',
    empty: 'Nenhuma resposta rápida encontrada.',
    saved: 'Resposta rápida salva com sucesso!',
    deleted: 'Resposta rápida excluída com sucesso!',
    deleteTitle: 'Excluir a resposta rápida {{name}}?',
    deleteText: 'Esta ação não pode ser revertida.',
  },
};

export default quickMessages;
