/**
 * Realtime events not named `company-{id}-...` that more than one feature hears (docs/api.md
 * "Realtime"); subscribe with `useCompanySocketEvent`.
 */

/**
 * Old-message import of a WhatsApp connection (spec 2): `update` `{status: {this, all, date,
 * whatsappId}}` while it runs (`this` -1 while preparing), `refresh` `{whatsappId}` once it ended.
 */
export const importMessagesEvent = (companyId: number): string => `importMessages-${companyId}`;
