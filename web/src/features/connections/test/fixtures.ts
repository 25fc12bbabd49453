/** Wire fixtures for the connections page (docs/api.md "Inbox"). */
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

/** An inbound failure (core/src/inbox/inbound.rs `InboundFailure`): by default a text message kept after a validation error. */
export function inboundFailureFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    whatsappId: 1,
    event: {
      type: 'message',
      externalId: `ext${id}`,
      chat: '5511988887777@s.whatsapp.net',
      chatName: 'Maria',
      isGroup: false,
      participant: null,
      fromMe: false,
      body: `Olá, preciso de ajuda ${id}`,
      mediaType: 'chat',
      media: null,
      quotedExternalId: null,
      timestamp: '2026-03-04T15:07:00Z',
    },
    error: 'ERR_VALIDATION',
    detail: 'body: too long',
    attempts: 1,
    createdAt: '2026-03-04T15:07:00',
    updatedAt: '2026-03-04T15:07:00',
    ...overrides,
  };
}
