/**
 * The top bar's ticket notifications (spec 1 "Layout and top bar"): the tickets with unread
 * messages that are the user's or unassigned, from `GET /tickets?withUnreadMessages=true`
 * (the server applies the visibility rules), kept current by the live ticket and message events,
 * and when a new contact message deserves the notification sound. Pure rules, tested apart.
 */
import { z } from 'zod/mini';
import { api } from '../../lib/api';
import { ticketSchema, ticketsPageSchema, type Ticket } from './types';

export interface UnreadTickets {
  tickets: Ticket[];
  /** All of them (the list holds the first page). */
  total: number;
}

export const notificationsKey = ['tickets', 'unread'] as const;

export async function getUnreadTickets(signal?: AbortSignal): Promise<UnreadTickets> {
  const page = await api.get('/tickets', { params: { withUnreadMessages: 'true', showAll: 'false' }, schema: ticketsPageSchema, signal });
  const tickets = page.tickets.filter((t) => t.unreadMessages > 0);
  return { tickets, total: Math.max(page.count ?? tickets.length, tickets.length) };
}

/** A ticket notifies its unread messages when it is the user's or unassigned, and not closed. */
export function isMine(ticket: Ticket, userId: number): boolean {
  return ticket.status !== 'closed' && (ticket.userId == null || ticket.userId === userId);
}

export function removeNotification(data: UnreadTickets | undefined, ticketId: number): UnreadTickets | undefined {
  if (!data || !data.tickets.some((t) => t.id === ticketId)) return data;
  return { tickets: data.tickets.filter((t) => t.id !== ticketId), total: Math.max(0, data.total - 1) };
}

/** A ticket changed: it moves to the top while it has unread messages for the user, else leaves. */
export function applyNotificationTicket(data: UnreadTickets | undefined, ticket: Ticket, userId: number): UnreadTickets | undefined {
  if (!data) return data;
  if (!(ticket.unreadMessages > 0 && isMine(ticket, userId))) return removeNotification(data, ticket.id);
  const present = data.tickets.some((t) => t.id === ticket.id);
  return { tickets: [ticket, ...data.tickets.filter((t) => t.id !== ticket.id)], total: present ? data.total : data.total + 1 };
}

/** The tickets the bell shows: all but the one open on screen, which the user is reading. */
export function visibleNotifications(data: UnreadTickets | undefined, openUuid: string | undefined): UnreadTickets {
  if (!data) return { tickets: [], total: 0 };
  const open = openUuid ? data.tickets.find((t) => t.uuid === openUuid) : undefined;
  if (!open) return data;
  return { tickets: data.tickets.filter((t) => t !== open), total: Math.max(0, data.total - 1) };
}

const liveMessageSchema = z.object({ fromMe: z.catch(z.boolean(), false), isPrivate: z.catch(z.boolean(), false), mediaType: z.catch(z.string(), 'chat') });

export interface SoundContext {
  userId: number;
  /** The ticket open on screen, if any. */
  openUuid: string | undefined;
  /** The page is visible and has the focus. */
  focused: boolean;
}

/**
 * The sound plays for a new message (`appMessage` `create`) from a contact on a ticket that is
 * the user's or unassigned, unless it is the ticket open on a focused page. A gap notice
 * (`mediaType` `gap`) is from no one and plays nothing.
 */
export function shouldPlaySound(payload: { action?: unknown; message?: unknown; ticket?: unknown }, context: SoundContext): boolean {
  if (payload.action !== 'create') return false;
  const message = liveMessageSchema.safeParse(payload.message);
  const ticket = ticketSchema.safeParse(payload.ticket);
  if (!message.success || !ticket.success) return false;
  if (message.data.fromMe || message.data.isPrivate || message.data.mediaType === 'gap') return false;
  if (!isMine(ticket.data, context.userId)) return false;
  return !(context.focused && ticket.data.uuid === context.openUuid);
}
