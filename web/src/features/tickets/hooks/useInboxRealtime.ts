/**
 * Keeps the inbox current from the socket (docs/api.md "Realtime"):
 * `company-{id}-ticket` (`update {ticket}`, `delete {ticketId}`, `updateUnread {ticketId}`) and
 * `company-{id}-appMessage` (`create|update|delete {message, ticket}`) update every loaded list
 * and the open ticket's messages. Every payload has `seq`; the highest seen is kept, and on a
 * reconnection the hook sends `sync {lastSeq}` and applies the events the server returns, or
 * refetches every list when it answers `{refresh: true}`. An old-message import that ended
 * (`importMessages-{id}` `refresh`) added tickets: the lists are read again.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { getSocket, importMessagesEvent, onSocketChange, useCompanyEvent, useCompanySocketEvent } from '../../../lib/socket';
import { sessionStore, useSession } from '../../../lib/session';
import { withRules, type Rules } from '../../../lib/wasm/rules';
import { messagesKeys, upsertMessage, type MessagesData } from '../messages/api/messages';
import { messageSchema } from '../messages/types';
import { ticketsKeys, type TicketListParams } from '../api/tickets';
import { applyTicketUpdate, markTicketRead, removeTicket, type TicketsData } from '../realtime';
import { ticketSchema, type Ticket } from '../types';

const STATUSES = ['open', 'pending', 'closed', 'group'] as const;

interface Payload {
  action?: string;
  seq?: number;
  ticket?: unknown;
  ticketId?: number;
  message?: unknown;
}

function eachList(queryClient: QueryClient, update: (data: TicketsData | undefined, params: TicketListParams) => TicketsData | undefined) {
  for (const [key] of queryClient.getQueriesData<TicketsData>({ queryKey: ticketsKeys.lists() })) {
    const params = key[2] as TicketListParams | undefined;
    if (!params) continue;
    queryClient.setQueryData<TicketsData>(key, (data) => update(data, params));
  }
}

function applyTicket(queryClient: QueryClient, rules: Rules, ticket: Ticket) {
  const session = sessionStore.get();
  eachList(queryClient, (data, params) => {
    const belongs = session.status === 'authenticated' && params.tab !== 'search' && rules.belongsToList(session.user, params, ticket);
    return applyTicketUpdate(data, ticket, params, belongs);
  });
  queryClient.setQueryData(ticketsKeys.detail(ticket.uuid), ticket);
}

/**
 * Applies one event (live or replayed by `sync`); `name` is `ticket` or `appMessage`. Events wait,
 * in order, for the core's rules module when it is not in yet (it decides list membership); when
 * the module cannot be loaded, the lists and messages are fetched again instead, so the event's
 * change still shows.
 */
export function applyInboxEvent(queryClient: QueryClient, name: string, payload: Payload): void {
  withRules(
    (rules) => applyInboxEventWith(queryClient, rules, name, payload),
    () => void refetchInbox(queryClient),
  );
}

/** Fetches every loaded list and conversation again. */
function refetchInbox(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([queryClient.invalidateQueries({ queryKey: ticketsKeys.all }), queryClient.invalidateQueries({ queryKey: messagesKeys.all })]);
}

function applyInboxEventWith(queryClient: QueryClient, rules: Rules, name: string, payload: Payload): void {
  if (name === 'ticket') {
    if (payload.action === 'delete' && typeof payload.ticketId === 'number') {
      const id = payload.ticketId;
      eachList(queryClient, (data) => removeTicket(data, id));
      return;
    }
    if (payload.action === 'updateUnread' && typeof payload.ticketId === 'number') {
      const id = payload.ticketId;
      eachList(queryClient, (data) => markTicketRead(data, id));
      return;
    }
    const ticket = ticketSchema.safeParse(payload.ticket);
    if (payload.action === 'update' && ticket.success) applyTicket(queryClient, rules, ticket.data);
    return;
  }
  if (name === 'appMessage') {
    const ticket = ticketSchema.safeParse(payload.ticket);
    if (ticket.success) applyTicket(queryClient, rules, ticket.data);
    const message = messageSchema.safeParse(payload.message);
    if (message.success && ticket.success) {
      queryClient.setQueryData<MessagesData>(messagesKeys.ticket(ticket.data.uuid), (data) => upsertMessage(data, message.data));
    } else if (message.success) {
      for (const [key] of queryClient.getQueriesData<MessagesData>({ queryKey: [...messagesKeys.all, 'ticket'] })) {
        const data = queryClient.getQueryData<MessagesData>(key);
        if (data?.pages.some((p) => p.messages.some((m) => m.ticketId === message.data.ticketId))) {
          queryClient.setQueryData<MessagesData>(key, (d) => upsertMessage(d, message.data));
        }
      }
    }
  }
}

const syncAnswerSchema = z.union([
  z.object({ refresh: z.literal(true) }),
  z.object({ events: z.array(z.object({ event: z.string(), payload: z.unknown() })) }),
]);

/** The event's short name: `company-1-ticket` → `ticket`. */
function shortName(event: string): string {
  const match = /^company-\d+-(.+)$/.exec(event);
  return match ? match[1] : event;
}

export function useInboxRealtime(): void {
  const queryClient = useQueryClient();
  const session = useSession();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const lastSeq = useRef<number | null>(null);

  const track = (payload: Payload) => {
    if (typeof payload.seq === 'number' && (lastSeq.current === null || payload.seq > lastSeq.current)) lastSeq.current = payload.seq;
  };
  useCompanyEvent<Payload>('ticket', (payload) => {
    track(payload);
    applyInboxEvent(queryClient, 'ticket', payload);
  });
  useCompanyEvent<Payload>('appMessage', (payload) => {
    track(payload);
    applyInboxEvent(queryClient, 'appMessage', payload);
  });
  useCompanySocketEvent<Payload | null>(importMessagesEvent, (payload) => {
    if (payload?.action === 'refresh') void queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() });
  });

  const signedIn = session.status === 'authenticated';
  useEffect(() => {
    if (!socket || !signedIn) return;
    const join = () => {
      for (const status of STATUSES) socket.emit('joinTickets', status);
    };
    join();
    const onConnect = () => {
      join();
      if (lastSeq.current === null) {
        void queryClient.invalidateQueries({ queryKey: ticketsKeys.all });
        return;
      }
      socket.emit('sync', { lastSeq: lastSeq.current }, (answer: unknown) => {
        const parsed = syncAnswerSchema.safeParse(answer);
        if (!parsed.success || 'refresh' in parsed.data) {
          void refetchInbox(queryClient);
          return;
        }
        for (const { event, payload } of parsed.data.events) {
          const body = (payload ?? {}) as Payload;
          track(body);
          applyInboxEvent(queryClient, shortName(event), body);
        }
      });
    };
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
      for (const status of STATUSES) socket.emit('leaveTickets', status);
    };
  }, [socket, signedIn, queryClient]);
}
