/** Wire fixtures for the connections, contacts and tags pages (docs/api.md "Inbox"). */
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';

export function connectionFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    companyId: 1,
    name: `Conexão ${id}`,
    number: `55119999900${id}`,
    channel: 'whatsapp',
    provider: 'sandbox',
    status: 'CONNECTED',
    qrcode: '',
    retries: 0,
    isDefault: false,
    token: `tok${id}`.padEnd(30, 'x'),
    greetingMessage: '',
    complationMessage: '',
    outOfHoursMessage: '',
    ratingMessage: '',
    allowGroup: false,
    groupAsTicket: false,
    maxUseBotQueues: 3,
    timeUseBotQueues: 0,
    timeSendQueue: 0,
    sendIdQueue: null,
    expiresTicket: 0,
    expiresInactiveMessage: '',
    timeCreateNewTicket: 0,
    queueIds: [],
    queues: [],
    updatedAt: '2026-03-04T15:07:00',
    ...overrides,
  };
}

export const ADMIN_INBOX_PERMISSIONS = [
  ...ADMIN_PERMISSIONS,
  'menu:connections',
  'menu:contacts',
  'menu:tags',
  'connections-page:actionButtons',
  'connections-page:addConnection',
  'connections-page:editOrDeleteConnection',
  'contacts-page:deleteContact',
  'contacts:export',
  'tags:delete',
];

export function adminAuth(permissions: string[] = ADMIN_INBOX_PERMISSIONS) {
  return authFixture({ permissions });
}
