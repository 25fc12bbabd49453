/**
 * Wire shapes of the inbox (docs/api.md "Inbox (issue 3)"; the serde forms of
 * core/src/inbox/model.rs). Lenient: optional parts fall back to defaults so a newer server
 * does not break the list.
 */
import { z } from 'zod/mini';
import { queueRefSchema, tagSchema } from '../../lib/lookups/refs';

export const TICKET_STATUSES = ['pending', 'open', 'closed', 'group', 'lgpd', 'nps'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const ticketUserSchema = z.object({ id: z.number(), name: z.string() });
export type TicketUser = z.infer<typeof ticketUserSchema>;

export const ticketContactSchema = z.object({
  id: z.number(),
  name: z.string(),
  number: z.catch(z.string(), ''),
  urlPicture: z.nullish(z.string()),
  channel: z.catch(z.string(), 'whatsapp'),
  isGroup: z.catch(z.boolean(), false),
  active: z.catch(z.boolean(), true),
  tags: z.catch(z.array(tagSchema), []),
});
export type TicketContact = z.infer<typeof ticketContactSchema>;

export const ticketSchema = z.object({
  id: z.number(),
  uuid: z.string(),
  companyId: z.nullish(z.number()),
  status: z.enum(TICKET_STATUSES),
  unreadMessages: z.catch(z.number(), 0),
  lastMessage: z.nullish(z.string()),
  /** The message the ticket shows as its last one was deleted (docs/api.md "Tickets"). */
  lastMessageDeleted: z.catch(z.boolean(), false),
  /** That message was the company side's (for "deleted" wording). */
  lastMessageFromMe: z.catch(z.boolean(), false),
  /** The last message's media kind when the preview is only its placeholder (a file without a caption). */
  lastMessageMedia: z.catch(z.nullish(z.string()), null),
  isGroup: z.catch(z.boolean(), false),
  isBot: z.catch(z.boolean(), false),
  channel: z.catch(z.string(), 'whatsapp'),
  userId: z.nullish(z.number()),
  queueId: z.nullish(z.number()),
  whatsappId: z.nullish(z.number()),
  contactId: z.number(),
  useIntegration: z.catch(z.boolean(), false),
  isTransfered: z.catch(z.boolean(), false),
  contact: ticketContactSchema,
  queue: z.nullish(queueRefSchema),
  user: z.nullish(ticketUserSchema),
  whatsapp: z.nullish(z.object({ id: z.number(), name: z.string(), channel: z.nullish(z.string()), groupAsTicket: z.nullish(z.boolean()) })),
  tags: z.catch(z.array(tagSchema), []),
  userRating: z.nullish(z.object({ rate: z.number() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Ticket = z.infer<typeof ticketSchema>;

export const ticketsPageSchema = z.object({
  tickets: z.array(ticketSchema),
  hasMore: z.catch(z.boolean(), false),
  count: z.nullish(z.number()),
  nextCursor: z.nullish(z.string()),
});
export type TicketsPage = z.infer<typeof ticketsPageSchema>;

/** The inbox tabs (spec 1 "Tickets inbox"). */
export const TICKET_TABS = ['open', 'pending', 'group', 'closed', 'search'] as const;
export type TicketTab = (typeof TICKET_TABS)[number];

export const ticketLogEntrySchema = z.object({
  id: z.number(),
  type: z.string(),
  user: z.nullish(ticketUserSchema),
  queue: z.nullish(queueRefSchema),
  createdAt: z.string(),
});
export type TicketLogEntry = z.infer<typeof ticketLogEntrySchema>;

export const ticketNoteSchema = z.object({
  id: z.number(),
  note: z.string(),
  user: z.nullish(ticketUserSchema),
  ticketId: z.number(),
  contactId: z.number(),
  createdAt: z.string(),
});
export type TicketNote = z.infer<typeof ticketNoteSchema>;

/** The 409 `ERR_OTHER_OPEN_TICKET` body's `ticket`. */
export const otherOpenTicketSchema = z.object({
  id: z.number(),
  uuid: z.string(),
  userId: z.nullish(z.number()),
  user: z.nullish(ticketUserSchema),
  queue: z.nullish(queueRefSchema),
});
export type OtherOpenTicket = z.infer<typeof otherOpenTicketSchema>;
