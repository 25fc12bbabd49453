/** `POST /tickets/{id}/read` → 204: the caller read the ticket; its unread count goes to 0. */
import { api } from '../../../lib/api';

export function markTicketAsRead(ticketId: number): Promise<unknown> {
  return api.post(`/tickets/${ticketId}/read`);
}
