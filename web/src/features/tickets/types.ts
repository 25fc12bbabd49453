/**
 * Wire shapes of the inbox (docs/api.md "Inbox (issue 3)"; the serde forms of
 * core/src/inbox/model.rs). Lenient: optional parts fall back to defaults so a newer server
 * does not break the list.
 */
import { z } from 'zod';
import { queueRefSchema, tagSchema } from '../../lib/lookups/refs';

export const TICKET_STATUSES = ['pending', 'open', 'closed', 'group', 'lgpd', 'nps'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const ticketUserSchema = z.object({ id: z.number(), name: z.string() });
export type TicketUser = z.infer<typeof ticketUserSchema>;

export const ticketContactSchema = z.object({
  id: z.number(),
  name: z.string(),
  number: z.string().catch(''),
  urlPicture: z.string().nullish(),
  channel: z.string().catch('whatsapp'),
  isGroup: z.boolean().catch(false),
  active: z.boolean().catch(true),
  tags: z.array(tagSchema).catch([]),
});
export type TicketContact = z.infer<typeof ticketContactSchema>;

export const ticketSchema = z.object({
  id: z.number(),
  uuid: z.string(),
  companyId: z.number().nullish(),
  status: z.enum(TICKET_STATUSES),
  unreadMessages: z.number().catch(0),
  lastMessage: z.string().nullish(),
  /** The message the ticket shows as its last one was deleted (docs/api.md "Tickets"). */
  lastMessageDeleted: z.boolean().catch(false),
  /** That message was the company side's (for "deleted" wording). */
  lastMessageFromMe: z.boolean().catch(false),
  /** The last message's media kind when the preview is only its placeholder (a file without a caption). */
  lastMessageMedia: z.string().nullish().catch(null),
  isGroup: z.boolean().catch(false),
  isBot: z.boolean().catch(false),
  channel: z.string().catch('whatsapp'),
  userId: z.number().nullish(),
  queueId: z.number().nullish(),
  whatsappId: z.number().nullish(),
  contactId: z.number(),
  useIntegration: z.boolean().catch(false),
  isTransfered: z.boolean().catch(false),
  contact: ticketContactSchema,
  queue: queueRefSchema.nullish(),
  user: ticketUserSchema.nullish(),
  whatsapp: z.object({ id: z.number(), name: z.string(), channel: z.string().nullish(), groupAsTicket: z.boolean().nullish() }).nullish(),
  tags: z.array(tagSchema).catch([]),
  userRating: z.object({ rate: z.number() }).nullish(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Ticket = z.infer<typeof ticketSchema>;

export const ticketsPageSchema = z.object({
  tickets: z.array(ticketSchema),
  hasMore: z.boolean().catch(false),
  count: z.number().nullish(),
  nextCursor: z.string().nullish(),
});
export type TicketsPage = z.infer<typeof ticketsPageSchema>;

/** The inbox tabs (spec 1 "Tickets inbox"). */
export const TICKET_TABS = ['open', 'pending', 'group', 'closed', 'search'] as const;
export type TicketTab = (typeof TICKET_TABS)[number];

export const ticketLogEntrySchema = z.object({
  id: z.number(),
  type: z.string(),
  user: ticketUserSchema.nullish(),
  queue: queueRefSchema.nullish(),
  createdAt: z.string(),
});
export type TicketLogEntry = z.infer<typeof ticketLogEntrySchema>;

export const ticketNoteSchema = z.object({
  id: z.number(),
  note: z.string(),
  user: ticketUserSchema.nullish(),
  ticketId: z.number(),
  contactId: z.number(),
  createdAt: z.string(),
});
export type TicketNote = z.infer<typeof ticketNoteSchema>;

/** The 409 `ERR_OTHER_OPEN_TICKET` body's `ticket`. */
export const otherOpenTicketSchema = z.object({
  id: z.number(),
  uuid: z.string(),
  userId: z.number().nullish(),
  user: ticketUserSchema.nullish(),
  queue: queueRefSchema.nullish(),
});
export type OtherOpenTicket = z.infer<typeof otherOpenTicketSchema>;
