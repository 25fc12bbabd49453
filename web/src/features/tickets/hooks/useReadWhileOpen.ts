/**
 * Keeps the ticket on screen read: a contact message arriving while the page is visible and
 * focused, or the page regaining the focus while the ticket has unread messages, calls
 * `POST /tickets/{id}/read` (at most one call per `READ_DEBOUNCE_MS`), then clears the ticket's
 * badge in the loaded lists at once (the server's `updateUnread` follows).
 */
import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { ticketsKeys } from '../api/tickets';
import { markTicketAsRead } from '../api/read';
import { isIncomingMessageFor, pageFocused, READ_DEBOUNCE_MS } from '../readWhileOpen';
import type { Ticket } from '../types';
import { applyInboxEvent } from './useInboxRealtime';

export function useReadWhileOpen(ticket: Pick<Ticket, 'id' | 'uuid'> | undefined): void {
  const queryClient = useQueryClient();
  const ticketId = ticket?.id;
  const uuid = ticket?.uuid;
  /** Something arrived while the page was not being looked at. */
  const unseen = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const schedule = useRef<() => void>(() => undefined);
  useEffect(() => {
    unseen.current = false;
    if (ticketId === undefined || uuid === undefined) return;
    schedule.current = () => {
      unseen.current = false;
      if (timer.current !== null) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        markTicketAsRead(ticketId)
          .then(() => {
            queryClient.setQueryData<Ticket>(ticketsKeys.detail(uuid), (data) => (data ? { ...data, unreadMessages: 0 } : data));
            applyInboxEvent(queryClient, 'ticket', { action: 'updateUnread', ticketId });
          })
          .catch(() => {
            // Best effort: the badge stays until the next read.
          });
      }, READ_DEBOUNCE_MS);
    };
    const onFocus = () => {
      const unread = queryClient.getQueryData<Ticket>(ticketsKeys.detail(uuid))?.unreadMessages ?? 0;
      if (pageFocused() && (unseen.current || unread > 0)) schedule.current();
    };
    window.addEventListener('focus', onFocus);
    document.addEventListener('visibilitychange', onFocus);
    return () => {
      window.removeEventListener('focus', onFocus);
      document.removeEventListener('visibilitychange', onFocus);
      schedule.current = () => undefined;
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [ticketId, uuid, queryClient]);

  useCompanyEvent<{ action?: unknown; message?: unknown; ticket?: unknown }>('appMessage', (payload) => {
    if (ticketId === undefined || !isIncomingMessageFor(payload, ticketId)) return;
    if (pageFocused()) schedule.current();
    else unseen.current = true;
  });
}
