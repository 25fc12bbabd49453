import type pt from './pt';

const messages: typeof pt = {
  messages: {
    placeholder: 'Type a message',
    placeholderPrivate: 'Type a private note',
    send: 'Send',
    emoji: 'Emoji',
    attach: 'Attach file',
    sendContact: 'Send contact',
    privateNote: 'Private note',
    privateOn: 'Private note: on',
    privateOff: 'Private note: off',
    sign: 'Sign message',
    readOnly: 'Accept or reopen the ticket to reply.',
    options: 'Message options',
    replyingTo: 'Replying to',
    editing: 'Editing message',
    edited: 'Edited',
    forwarded: 'Forwarded',
    deletedOwn: 'This message was deleted',
    deletedByContact: 'Message deleted by the contact',
    deletedQuoted: 'Deleted message',
    callLog: 'Missed call at {{time}}',
    reply24h: 'You have 24 hours to reply to this message.',
    mediaError: 'The media could not be loaded.',
    download: 'Download',
    deleteTitle: 'Delete message?',
    deleteMessage: 'The message will be deleted for everyone.',
    ack: { clock: 'Sending', sent: 'Sent', delivered: 'Delivered', read: 'Read', played: 'Played' },
    actions: { reply: 'Reply', forward: 'Forward', edit: 'Edit', delete: 'Delete', react: 'React' },
    media: { title: 'Send files', caption: 'Caption' },
    forward: { title: 'Forward message', submit: 'Forward', done: 'Message forwarded', noMessage: 'No message selected' },
    pick: { contact: 'Contact', typeMore: 'Type at least 3 characters' },
  },
};

export default messages;
