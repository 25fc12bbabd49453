/** Inbox wire fixtures (docs/api.md "Inbox"): tickets, messages, the queues of the signed-in user. */
import { ADMIN_PERMISSIONS, authFixture } from './fixtures';

export const QUEUES = [
  { id: 1, name: 'Suporte', color: '#ff0000' },
  { id: 2, name: 'Vendas', color: '#00ff00' },
];

export function inboxAuth(options: { user?: Record<string, unknown>; permissions?: string[] } = {}) {
  return authFixture({
    user: { queues: QUEUES, queueIds: [1, 2], ...options.user },
    permissions: options.permissions ?? [...ADMIN_PERMISSIONS, 'ticket-options:deleteTicket', 'tickets:close-pending'],
  });
}

export function ticketFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    uuid: `uuid-${id}`,
    companyId: 1,
    status: 'open',
    unreadMessages: 0,
    lastMessage: `Mensagem ${id}`,
    isGroup: false,
    isBot: false,
    channel: 'whatsapp',
    userId: 1,
    queueId: 1,
    whatsappId: 3,
    contactId: 100 + id,
    amountUsedBotQueues: 0,
    useIntegration: false,
    isTransfered: false,
    contact: { id: 100 + id, name: `Contato ${id}`, number: '5511999990000', urlPicture: null, channel: 'whatsapp', isGroup: false, active: true, tags: [] },
    queue: QUEUES[0],
    user: { id: 1, name: 'Admin' },
    whatsapp: { id: 3, name: 'Comercial', channel: 'whatsapp', groupAsTicket: false },
    tags: [],
    createdAt: '2026-01-01T10:00:00Z',
    updatedAt: new Date().toISOString(),
    ...overrides,
  };
}

export function messageFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    ticketId: 7,
    contactId: 107,
    whatsappId: 3,
    externalId: `wid-${id}`,
    body: `Mensagem ${id}`,
    fromMe: false,
    read: true,
    isPrivate: false,
    isDeleted: false,
    isEdited: false,
    isForwarded: false,
    mediaType: 'chat',
    mediaUrl: null,
    mediaName: null,
    quotedMsg: null,
    ack: 0,
    reactions: [],
    userId: null,
    participant: null,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    ...overrides,
  };
}
