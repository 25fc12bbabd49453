import type pt from './pt';

const messages: typeof pt = {
  messages: {
    placeholder: 'Escriba un mensaje',
    placeholderPrivate: 'Escriba una nota privada',
    send: 'Enviar',
    emoji: 'Emoji',
    attach: 'Adjuntar archivo',
    sendContact: 'Enviar contacto',
    privateNote: 'Nota privada',
    privateOn: 'Nota privada: activada',
    privateOff: 'Nota privada: desactivada',
    sign: 'Firmar mensaje',
    readOnly: 'Acepte o reabra el ticket para responder.',
    options: 'Opciones del mensaje',
    replyingTo: 'Respondiendo a',
    editing: 'Editando mensaje',
    edited: 'Editado',
    forwarded: 'Reenviado',
    deletedOwn: 'Este mensaje fue eliminado',
    deletedByContact: 'Mensaje eliminado por el contacto',
    deletedQuoted: 'Mensaje eliminado',
    callLog: 'Llamada perdida a las {{time}}',
    reply24h: 'Tiene 24 horas para responder a este mensaje.',
    mediaError: 'No se pudo cargar el archivo.',
    download: 'Descargar',
    deleteTitle: '¿Eliminar mensaje?',
    deleteMessage: 'El mensaje se eliminará para todos.',
    ack: { clock: 'Enviando', sent: 'Enviado', delivered: 'Entregado', read: 'Leído', played: 'Reproducido' },
    actions: { reply: 'Responder', forward: 'Reenviar', edit: 'Editar', delete: 'Eliminar', react: 'Reaccionar' },
    media: { title: 'Enviar archivos', caption: 'Leyenda' },
    forward: { title: 'Reenviar mensaje', submit: 'Reenviar', done: 'Mensaje reenviado', noMessage: 'Ningún mensaje seleccionado' },
    pick: { contact: 'Contacto', typeMore: 'Escriba al menos 3 caracteres' },
  },
};

export default messages;
