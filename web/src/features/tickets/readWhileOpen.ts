/**
 * Read while open (spec 1 "Ticket view"): the ticket on screen is being read, so a new contact
 * message there, on a visible and focused page, marks it read on the server
 * (`POST /tickets/{id}/read`), once per burst. Pure rules, tested apart from the hook.
 */
import { z } from 'zod/mini';

/** A burst of messages within this window makes one call. */
export const READ_DEBOUNCE_MS = 1000;

const liveMessageSchema = z.object({ fromMe: z.catch(z.boolean(), false), ticketId: z.nullish(z.number()) });
const liveTicketSchema = z.object({ id: z.number() });

/** The payload of `appMessage` is a new message from the contact (not ours) in ticket `ticketId`. */
export function isIncomingMessageFor(payload: { action?: unknown; message?: unknown; ticket?: unknown }, ticketId: number): boolean {
  if (payload.action !== 'create') return false;
  const message = liveMessageSchema.safeParse(payload.message);
  if (!message.success || message.data.fromMe) return false;
  const ticket = liveTicketSchema.safeParse(payload.ticket);
  const id = message.data.ticketId ?? (ticket.success ? ticket.data.id : null);
  return id === ticketId;
}

/** The page is on screen and has the focus: what arrives is being read. */
export function pageFocused(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}
