/**
 * How live ticket events change a loaded inbox list (spec 1 §4 "Real-time behaviour"): pure
 * functions over one list's cached pages, so the rules are tested apart from the socket.
 *
 * - A ticket belongs in a list when its status is the tab's (search: never inserted, only
 *   refreshed in place), it is the user's or unassigned (or show-all is on), and its queue is
 *   among the selected queues (a ticket without a queue passes).
 * - An update of a ticket that belongs moves it to the top (descending sort) or keeps its
 *   place / goes last (ascending); one that no longer belongs is removed.
 */
import type { InfiniteData } from '@tanstack/react-query';
import type { TicketListParams, TicketsPageParam } from './api/tickets';
import type { Ticket, TicketsPage } from './types';

export type TicketsData = InfiniteData<TicketsPage, TicketsPageParam>;

/** The statuses a tab lists. */
export function tabStatuses(tab: TicketListParams['tab']): readonly string[] | null {
  switch (tab) {
    case 'open':
      return ['open'];
    case 'pending':
      return ['pending'];
    case 'group':
      return ['group'];
    case 'closed':
      return ['closed'];
    case 'search':
      return null;
  }
}

/** Whether `ticket` should be shown in the list described by `params`. */
export function belongsToList(ticket: Ticket, params: TicketListParams): boolean {
  const statuses = tabStatuses(params.tab);
  if (statuses && !statuses.includes(ticket.status)) return false;
  if (!params.showAll && ticket.status !== 'pending' && ticket.userId != null && ticket.userId !== params.userId) return false;
  if (params.queueIds.length > 0 && ticket.queueId != null && !params.queueIds.includes(ticket.queueId)) return false;
  if (params.userIds.length > 0 && (ticket.userId == null || !params.userIds.includes(ticket.userId))) return false;
  if (params.whatsappIds.length > 0 && (ticket.whatsappId == null || !params.whatsappIds.includes(ticket.whatsappId))) return false;
  if (params.tagIds.length > 0 && !ticket.tags.some((tag) => params.tagIds.includes(tag.id))) return false;
  return true;
}

function contains(data: TicketsData, ticketId: number): boolean {
  return data.pages.some((page) => page.tickets.some((t) => t.id === ticketId));
}

export function removeTicket(data: TicketsData | undefined, ticketId: number): TicketsData | undefined {
  if (!data || !contains(data, ticketId)) return data;
  return { ...data, pages: data.pages.map((page) => ({ ...page, tickets: page.tickets.filter((t) => t.id !== ticketId) })) };
}

function replaceInPlace(data: TicketsData, ticket: Ticket): TicketsData {
  return { ...data, pages: data.pages.map((page) => ({ ...page, tickets: page.tickets.map((t) => (t.id === ticket.id ? ticket : t)) })) };
}

/** Applies an `update` (or a message's ticket) to one list. */
export function applyTicketUpdate(data: TicketsData | undefined, ticket: Ticket, params: TicketListParams): TicketsData | undefined {
  if (!data) return data;
  const present = contains(data, ticket.id);
  if (params.tab === 'search') {
    return present ? replaceInPlace(data, ticket) : data;
  }
  if (!belongsToList(ticket, params)) return removeTicket(data, ticket.id);
  if (data.pages.length === 0) return data;
  if (params.sort === 'ASC') {
    if (present) return replaceInPlace(data, ticket);
    const last = data.pages.length - 1;
    return { ...data, pages: data.pages.map((page, i) => (i === last ? { ...page, tickets: [...page.tickets, ticket] } : page)) };
  }
  const without = removeTicket(data, ticket.id) ?? data;
  const [first, ...rest] = without.pages;
  return { ...without, pages: [{ ...first, tickets: [ticket, ...first.tickets] }, ...rest] };
}

/** `updateUnread`: the ticket was read; its badge goes away. */
export function markTicketRead(data: TicketsData | undefined, ticketId: number): TicketsData | undefined {
  if (!data || !contains(data, ticketId)) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, tickets: page.tickets.map((t) => (t.id === ticketId ? { ...t, unreadMessages: 0 } : t)) })),
  };
}
