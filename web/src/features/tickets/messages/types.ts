/** Wire shape of a message (docs/api.md "Messages"; `Message` in core/src/inbox/model.rs). */
import { z } from 'zod';

export const MEDIA_TYPES = ['chat', 'image', 'audio', 'video', 'application', 'locationMessage', 'contactMessage', 'reactionMessage', 'call_log'] as const;

export const quotedMessageSchema = z.object({
  id: z.number(),
  body: z.string().catch(''),
  fromMe: z.boolean().catch(false),
  mediaType: z.string().catch('chat'),
  isDeleted: z.boolean().catch(false),
});
export type QuotedMessage = z.infer<typeof quotedMessageSchema>;

export const messageSchema = z.object({
  id: z.number(),
  ticketId: z.number(),
  contactId: z.number().nullish(),
  body: z.string().catch(''),
  fromMe: z.boolean().catch(false),
  read: z.boolean().catch(false),
  isPrivate: z.boolean().catch(false),
  isDeleted: z.boolean().catch(false),
  isEdited: z.boolean().catch(false),
  isForwarded: z.boolean().catch(false),
  mediaType: z.string().catch('chat'),
  mediaUrl: z.string().nullish(),
  mediaName: z.string().nullish(),
  quotedMsg: quotedMessageSchema.nullish(),
  ack: z.number().catch(0),
  reactions: z.array(z.object({ emoji: z.string(), fromMe: z.boolean().catch(false) })).catch([]),
  userId: z.number().nullish(),
  participant: z.string().nullish(),
  createdAt: z.string(),
  updatedAt: z.string().nullish(),
});
export type Message = z.infer<typeof messageSchema>;

export const messagesPageSchema = z.object({
  messages: z.array(messageSchema),
  hasMore: z.boolean().catch(false),
  nextCursor: z.string().nullish(),
  count: z.number().nullish(),
  /** The ticket, as the tickets feature reads it. */
  ticket: z.unknown().optional(),
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
