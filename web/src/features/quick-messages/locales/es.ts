import type pt from './pt';

const quickMessages: typeof pt = {
  quickMessages: {
    title: 'Respuestas rápidas',
    search: 'Buscar...',
    add: 'Agregar',
    addTitle: 'Agregar respuesta rápida',
    editTitle: 'Editar respuesta rápida',
    shortcode: 'Atajo',
    message: 'Respuesta',
    media: 'Archivo',
    noMedia: 'Sin adjunto',
    geral: 'Global',
    actions: 'Acciones',
    attach: 'Adjuntar archivo',
    removeFile: 'Quitar archivo',
    readOnly: 'Solo su dueño puede editar esta respuesta privada.',
    empty: 'No se encontraron respuestas rápidas.',
    saved: '¡Respuesta rápida guardada!',
    deleted: '¡Respuesta rápida eliminada!',
    deleteTitle: '¿Eliminar la respuesta rápida {{name}}?',
    deleteText: 'Esta acción no se puede deshacer.',
  },
};

export default quickMessages;
