/** Wire shape of a message (docs/api.md "Messages"; `Message` in core/src/inbox/model.rs). */
import { z } from 'zod/mini';

/**
 * The media kinds (`mediaType`). `gap` is the notice line of a gap after an outage
 * (docs/channels.md "Gaps after an outage"): from no one, no file, its body the interval
 * `{from}/{to}` in RFC 3339.
 */
export const MEDIA_TYPES = ['chat', 'image', 'audio', 'video', 'application', 'locationMessage', 'contactMessage', 'reactionMessage', 'call_log', 'gap'] as const;

export const quotedMessageSchema = z.object({
  id: z.number(),
  body: z.catch(z.string(), ''),
  fromMe: z.catch(z.boolean(), false),
  mediaType: z.catch(z.string(), 'chat'),
  isDeleted: z.catch(z.boolean(), false),
});
export type QuotedMessage = z.infer<typeof quotedMessageSchema>;

export const messageSchema = z.object({
  id: z.number(),
  ticketId: z.number(),
  contactId: z.nullish(z.number()),
  body: z.catch(z.string(), ''),
  fromMe: z.catch(z.boolean(), false),
  read: z.catch(z.boolean(), false),
  isPrivate: z.catch(z.boolean(), false),
  isDeleted: z.catch(z.boolean(), false),
  isEdited: z.catch(z.boolean(), false),
  isForwarded: z.catch(z.boolean(), false),
  mediaType: z.catch(z.string(), 'chat'),
  mediaUrl: z.nullish(z.string()),
  mediaName: z.nullish(z.string()),
  /**
   * A received attachment that could not be downloaded: the error code (`ERR_WAPP_DOWNLOAD_MEDIA`);
   * the message then has its `mediaType` but no `mediaUrl` (`POST /messages/{id}/media/retry`).
   */
  mediaError: z.nullish(z.string()),
  quotedMsg: z.nullish(quotedMessageSchema),
  ack: z.catch(z.number(), 0),
  /**
   * `notDelivered`: an own message WhatsApp's server took (one tick) that no phone confirmed for
   * 10 minutes; a later receipt clears it (`null`). Unknown values read as none.
   */
  deliveryIssue: z.catch(z.nullish(z.literal('notDelivered')), null),
  reactions: z.catch(z.array(z.object({ emoji: z.string(), fromMe: z.catch(z.boolean(), false) })), []),
  userId: z.nullish(z.number()),
  participant: z.nullish(z.string()),
  createdAt: z.string(),
  updatedAt: z.nullish(z.string()),
});
export type Message = z.infer<typeof messageSchema>;

export const messagesPageSchema = z.object({
  messages: z.array(messageSchema),
  hasMore: z.catch(z.boolean(), false),
  nextCursor: z.nullish(z.string()),
  count: z.nullish(z.number()),
  /** The ticket, as the tickets feature reads it. */
  ticket: z.optional(z.unknown()),
});
export type MessagesPage = z.infer<typeof messagesPageSchema>;

/** What the message views need to know about their ticket. */
export interface MessageTicket {
  id: number;
  uuid: string;
  status: string;
  channel: string;
  contactId: number;
  contactName: string;
}

/** Spec 1 §9: own messages are editable for 15 minutes. */
export const EDIT_WINDOW_MS = 15 * 60 * 1000;

export function canEditMessage(message: Message, userId: number, now: number = Date.now()): boolean {
  if (!message.fromMe || message.isDeleted || message.mediaType !== 'chat') return false;
  if (message.userId != null && message.userId !== userId) return false;
  return now - new Date(message.createdAt).getTime() <= EDIT_WINDOW_MS;
}

export function canDeleteMessage(message: Message, userId: number): boolean {
  if (!message.fromMe || message.isDeleted) return false;
  return message.userId == null || message.userId === userId;
}
