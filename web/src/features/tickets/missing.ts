/**
 * /tickets/{uuid} for a ticket that does not exist or that the user may not see (a stale link,
 * `/tickets/undefined`): the page goes back to the list, which shows a notice (docs/inbox.md).
 */
import { isApiError } from '../../lib/api';

/** The history state the list reads its notice from. */
export interface MissingTicketState {
  missingTicket: string;
}

export function missingTicketState(uuid: string): MissingTicketState {
  return { missingTicket: uuid };
}

/** The uuid of the ticket that could not be opened, from the history state. */
export function missingTicketOf(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const value = (state as Partial<MissingTicketState>).missingTicket;
  return typeof value === 'string' ? value : null;
}

/** The server's answer says there is no such ticket for this user (not a failure worth retrying). */
export function isMissingTicketError(error: unknown): boolean {
  return isApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 401;
}
