/**
 * How live ticket events change a loaded inbox list (spec 1 §4 "Real-time behaviour"): pure
 * functions over one list's cached pages, so the rules are tested apart from the socket.
 *
 * - Whether a ticket belongs in a list is the core's answer (`belongsToList` of
 *   `lib/wasm/rules`, the same filter `GET /tickets` runs), given by the caller; a search list
 *   never takes a ticket in, it only refreshes the ones it shows.
 * - An update of a ticket that belongs moves it to the top (descending sort) or keeps its
 *   place / goes last (ascending); one that no longer belongs is removed.
 */
import type { InfiniteData } from '@tanstack/react-query';
import type { TicketListParams, TicketsPageParam } from './api/tickets';
import type { Ticket, TicketsPage } from './types';

export type TicketsData = InfiniteData<TicketsPage, TicketsPageParam>;

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

/** Applies an `update` (or a message's ticket) to one list; `belongs`: the core's membership answer. */
export function applyTicketUpdate(data: TicketsData | undefined, ticket: Ticket, params: TicketListParams, belongs: boolean): TicketsData | undefined {
  if (!data) return data;
  const present = contains(data, ticket.id);
  if (params.tab === 'search') {
    return present ? replaceInPlace(data, ticket) : data;
  }
  if (!belongs) return removeTicket(data, ticket.id);
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
