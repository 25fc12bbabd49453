/**
 * Tickets (docs/api.md "Tickets"): the inbox lists (`GET /tickets`, keyset pages through
 * `nextCursor`, `pageNumber` as fallback), one ticket, create, update (the state machine's
 * transitions), delete and the log.
 */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { ticketLogEntrySchema, ticketSchema, ticketsPageSchema, type Ticket, type TicketTab, type TicketsPage } from '../types';

/** What one inbox list shows; part of its cache key, read back by the realtime rules. */
export interface TicketListParams {
  tab: TicketTab;
  search: string;
  searchOnMessages: boolean;
  showAll: boolean;
  queueIds: number[];
  tagIds: number[];
  userIds: number[];
  whatsappIds: number[];
  sort: 'ASC' | 'DESC';
  /** The signed-in user, for the "mine or unassigned" rule of live updates. */
  userId: number;
}

export const ticketsKeys = {
  all: ['tickets'] as const,
  lists: () => [...ticketsKeys.all, 'list'] as const,
  list: (params: TicketListParams) => [...ticketsKeys.lists(), params] as const,
  detail: (uuid: string) => [...ticketsKeys.all, 'detail', uuid] as const,
  log: (id: number) => [...ticketsKeys.all, 'log', id] as const,
};

/** A page to fetch: a cursor, or a page number when the server sent none. */
export type TicketsPageParam = { cursor: string | null; pageNumber: number };
const FIRST_PAGE: TicketsPageParam = { cursor: null, pageNumber: 1 };

/** The tickets with unread messages first, otherwise in the server's order (the first load). */
export function unreadFirst(tickets: Ticket[]): Ticket[] {
  return [...tickets.filter((t) => t.unreadMessages > 0), ...tickets.filter((t) => t.unreadMessages <= 0)];
}

export function listQueryParams(params: TicketListParams, page: TicketsPageParam) {
  const json = (ids: number[]) => (ids.length ? JSON.stringify(ids) : undefined);
  return {
    searchParam: params.search || undefined,
    searchOnMessages: params.tab === 'search' && params.searchOnMessages ? 'true' : undefined,
    status: params.tab === 'search' ? undefined : params.tab,
    showAll: params.showAll ? 'true' : 'false',
    queueIds: json(params.queueIds),
    tags: json(params.tagIds),
    users: json(params.userIds),
    whatsapps: json(params.whatsappIds),
    sortTickets: params.tab === 'open' || params.tab === 'pending' || params.tab === 'group' ? params.sort : undefined,
    cursor: page.cursor ?? undefined,
    pageNumber: page.cursor ? undefined : page.pageNumber,
  };
}

export async function getTickets(params: TicketListParams, page: TicketsPageParam, signal?: AbortSignal): Promise<TicketsPage> {
  const result = await api.get('/tickets', { params: listQueryParams(params, page), schema: ticketsPageSchema, signal });
  const first = page.cursor === null && page.pageNumber === 1;
  return first ? { ...result, tickets: unreadFirst(result.tickets) } : result;
}

export const ticketsInfiniteQuery = (params: TicketListParams) =>
  infiniteQueryOptions({
    queryKey: ticketsKeys.list(params),
    queryFn: ({ pageParam, signal }) => getTickets(params, pageParam, signal),
    initialPageParam: FIRST_PAGE,
    getNextPageParam: (last: TicketsPage, _all, lastParam: TicketsPageParam): TicketsPageParam | undefined => {
      if (!last.hasMore) return undefined;
      return last.nextCursor ? { cursor: last.nextCursor, pageNumber: lastParam.pageNumber + 1 } : { cursor: null, pageNumber: lastParam.pageNumber + 1 };
    },
  });

export function useTickets(params: TicketListParams, enabled = true) {
  return useInfiniteQuery({ ...ticketsInfiniteQuery(params), enabled });
}

export function getTicketByUuid(uuid: string, signal?: AbortSignal): Promise<Ticket> {
  return api.get(`/tickets/u/${encodeURIComponent(uuid)}`, { schema: ticketSchema, signal });
}

export const ticketQuery = (uuid: string) =>
  queryOptions({ queryKey: ticketsKeys.detail(uuid), queryFn: ({ signal }) => getTicketByUuid(uuid, signal) });

export function useTicket(uuid: string | undefined) {
  return useQuery({ ...ticketQuery(uuid ?? ''), enabled: !!uuid });
}

export interface NewTicketBody {
  contactId: number;
  /** `null` for a user with no queues: the ticket opens without one. */
  queueId: number | null;
  whatsappId: number;
  userId: number;
  status: 'open' | 'pending' | 'group';
}

export function createTicket(body: NewTicketBody): Promise<Ticket> {
  return api.post('/tickets', body, { schema: ticketSchema });
}

/** `PUT /tickets/{id}`: every transition (accept, return, resolve, ignore, reopen, transfer). */
export interface TicketUpdate {
  status?: 'open' | 'pending' | 'closed' | 'group';
  userId?: number | null;
  queueId?: number | null;
  msgTransfer?: string;
  isTransfered?: boolean;
  sendFarewellMessage?: boolean;
  useIntegration?: boolean;
}

export function updateTicket(id: number, body: TicketUpdate): Promise<Ticket> {
  return api.put(`/tickets/${id}`, body, { schema: ticketSchema });
}

export function useCreateTicket() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTicket,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() }),
  });
}

export function useUpdateTicket() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: TicketUpdate }) => updateTicket(id, body),
    onSuccess: (ticket) => {
      queryClient.setQueryData(ticketsKeys.detail(ticket.uuid), ticket);
      void queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() });
    },
  });
}

export function useDeleteTicket() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/tickets/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() }),
  });
}

export function useTicketLog(id: number, enabled: boolean) {
  return useQuery({
    queryKey: ticketsKeys.log(id),
    queryFn: ({ signal }) => api.get(`/tickets-log/${id}`, { schema: z.array(ticketLogEntrySchema), signal }),
    enabled,
  });
}

/** `PUT /users/toggleChangeWidht/{id}`: the user's inbox panel width (spec 1: 404 to 700). */
export function saveTicketsWidth(userId: number, width: number): Promise<unknown> {
  return api.put(`/users/toggleChangeWidht/${userId}`, { defaultTicketsManagerWidth: width });
}

/** `POST /tickets/closeAll` (admins): closes the tickets of one status in the selected queues. */
export function useCloseAllTickets() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { status: string; selectedQueueIds: number[] }) =>
      api.post('/tickets/closeAll', body, { schema: z.catch(z.object({ closed: z.catch(z.number(), 0) }), { closed: 0 }) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() }),
  });
}
