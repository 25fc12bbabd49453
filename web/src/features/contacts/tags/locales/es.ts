import type pt from './pt';

const tags: typeof pt = {
  tags: {
    title: 'Etiquetas',
    search: 'Buscar etiquetas...',
    add: 'Agregar etiqueta',
    addTitle: 'Agregar etiqueta',
    editTitle: 'Editar etiqueta',
    name: 'Nombre',
    color: 'Color',
    kanban: 'Kanban',
    actions: 'Acciones',
    empty: 'No se encontraron etiquetas.',
    saved: '¡Etiqueta guardada con éxito!',
    deleted: '¡Etiqueta eliminada con éxito!',
    deleteTitle: '¿Eliminar la etiqueta {{name}}?',
    deleteText: 'La etiqueta se quitará de todos los contactos y tickets.',
    tooShort: '¡Etiqueta muy corta!',
  },
};

export default tags;
