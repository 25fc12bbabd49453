/** Wire fixtures shaped as docs/api.md describes them. */
export function userFixture(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: 'Admin',
    email: 'admin@chatflow.test',
    profile: 'admin',
    super: true,
    companyId: 1,
    company: { id: 1, name: 'Empresa 1', dueDate: '2999-12-31', document: null, addressStreet: null, addressState: null, addressCity: null },
    startWork: '00:00',
    endWork: '23:59',
    farewellMessage: null,
    allTicket: 'disable',
    allowGroup: false,
    defaultTheme: 'light',
    defaultMenu: 'open',
    allHistoric: 'disabled',
    allUserChat: 'disabled',
    userClosePendingTicket: 'disabled',
    showDashboard: 'disabled',
    allowRealTime: 'disabled',
    allowConnections: 'disabled',
    whatsappId: null,
    queues: [],
    queueIds: [],
    profileImage: null,
    online: true,
    defaultTicketsManagerWidth: 550,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

export const ADMIN_PERMISSIONS = [
  'dashboard:view',
  'drawer-admin-items:view',
  'tickets-manager:showall',
  'user-modal:editProfile',
  'user-modal:editQueues',
  'menu:dashboard',
  'menu:tickets',
  'menu:users',
  'menu:settings',
  'page:users',
  'page:settings',
  'settings:platform',
];

export const ATTENDANT_PERMISSIONS = ['menu:tickets', 'menu:contacts', 'menu:quick-messages', 'menu:tags'];

export function authFixture(options: { user?: Record<string, unknown>; permissions?: string[]; subscription?: Record<string, unknown>; sessionId?: string } = {}) {
  return {
    token: 'header.eyJzdWIiOjF9.sig',
    user: userFixture(options.user),
    permissions: options.permissions ?? ADMIN_PERMISSIONS,
    subscription: { status: 'active', dueDate: '2999-12-31', daysLeft: 354000, ...options.subscription },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  };
}

/** An admin who also sees the connections, contacts and tags pages. */
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
