import { describe, expect, it } from 'vitest';
import type { TicketListParams } from './api/tickets';
import { unreadFirst } from './api/tickets';
import { userSchema } from '../../lib/session';
import { currentRules } from '../../lib/wasm/rules';
import { userFixture } from '../../test/fixtures';
import { applyTicketUpdate as applyWith, markTicketRead, removeTicket, type TicketsData } from './realtime';
import { ticketSchema, type Ticket } from './types';
import { ticketFixture } from '../../test/inbox-fixtures';

// The core's rules, loaded from the real WASM build by the test setup.
const rules = currentRules()!;
const attendant = userSchema.parse(userFixture({ profile: 'user', super: false, queues: [{ id: 1, name: 'Vendas', color: '#000' }] }));
const belongsToList = (t: Ticket, p: TicketListParams, user = attendant) => rules.belongsToList(user, p, t);
const applyTicketUpdate = (list: TicketsData | undefined, t: Ticket, p: TicketListParams) => applyWith(list, t, p, p.tab !== 'search' && belongsToList(t, p));

const ticket = (id: number, overrides: Record<string, unknown> = {}): Ticket => ticketSchema.parse(ticketFixture(id, overrides));

const params = (overrides: Partial<TicketListParams> = {}): TicketListParams => ({
  tab: 'open',
  search: '',
  searchOnMessages: false,
  showAll: false,
  queueIds: [1],
  tagIds: [],
  userIds: [],
  whatsappIds: [],
  sort: 'DESC',
  userId: 1,
  ...overrides,
});

const data = (...pages: Ticket[][]): TicketsData => ({
  pages: pages.map((tickets) => ({ tickets, hasMore: false, count: null, nextCursor: null })),
  pageParams: pages.map((_, i) => ({ cursor: null, pageNumber: i + 1 })),
});

const ids = (d: TicketsData | undefined) => d?.pages.flatMap((p) => p.tickets.map((t) => t.id));

describe('inbox realtime rules', () => {
  it('asks the core whether a ticket belongs: status, owner (unless show-all), queue, connection', () => {
    expect(belongsToList(ticket(1), params())).toBe(true);
    expect(belongsToList(ticket(1, { status: 'pending' }), params())).toBe(false);
    expect(belongsToList(ticket(1, { userId: 2 }), params())).toBe(false);
    expect(belongsToList(ticket(1, { queueId: 9, userId: null }), params())).toBe(false);
    // One always sees one's own tickets, whatever the queue.
    expect(belongsToList(ticket(1, { queueId: 9 }), params())).toBe(true);
    expect(belongsToList(ticket(1, { status: 'pending', userId: null }), params({ tab: 'pending' }))).toBe(true);
    expect(belongsToList(ticket(1), params({ whatsappIds: [4] }))).toBe(false);
  });

  it('follows the server where the old copy drifted: no queue, show-all, other users\' pending', () => {
    // A ticket without a queue is listed only with allTicket, whether or not queues are picked, as
    // GET /tickets lists it (the old copy always let it in).
    const noQueue = ticket(1, { userId: null, user: null, queueId: null, queue: null, status: 'pending' });
    expect(belongsToList(noQueue, params({ tab: 'pending' }))).toBe(false);
    expect(belongsToList(noQueue, params({ tab: 'pending', queueIds: [] }))).toBe(false);
    const allTicket = userSchema.parse({ ...attendant, allTicket: 'enable' });
    expect(belongsToList(noQueue, params({ tab: 'pending', queueIds: [] }), allTicket)).toBe(true);
    expect(belongsToList(noQueue, params({ tab: 'pending' }), allTicket)).toBe(true);
    // Another user's pending ticket is not in my pending list (the old copy kept every pending).
    expect(belongsToList(ticket(1, { status: 'pending', userId: 2 }), params({ tab: 'pending' }))).toBe(false);
    // Show-all widens only for whom the policy grants it.
    expect(belongsToList(ticket(1, { userId: 2 }), params({ showAll: true }))).toBe(false);
    const chat = userSchema.parse({ ...attendant, allUserChat: 'enabled' });
    expect(belongsToList(ticket(1, { userId: 2 }), params({ showAll: true }), chat)).toBe(true);
  });

  it('moves an updated ticket to the top (DESC) or keeps its place / appends (ASC)', () => {
    const list = data([ticket(1), ticket(2)], [ticket(3)]);
    expect(ids(applyTicketUpdate(list, ticket(3), params()))).toEqual([3, 1, 2]);
    expect(ids(applyTicketUpdate(list, ticket(2), params({ sort: 'ASC' })))).toEqual([1, 2, 3]);
    expect(ids(applyTicketUpdate(list, ticket(4), params({ sort: 'ASC' })))).toEqual([1, 2, 3, 4]);
    expect(ids(applyTicketUpdate(list, ticket(2, { status: 'closed' }), params()))).toEqual([1, 3]);
  });

  it('the search tab only refreshes what it shows', () => {
    const list = data([ticket(1)]);
    expect(ids(applyTicketUpdate(list, ticket(5), params({ tab: 'search' })))).toEqual([1]);
    const updated = applyTicketUpdate(list, ticket(1, { lastMessage: 'novo', status: 'closed' }), params({ tab: 'search' }));
    expect(updated?.pages[0].tickets[0].lastMessage).toBe('novo');
  });

  it('removes, marks read and puts unread first', () => {
    const list = data([ticket(1, { unreadMessages: 2 }), ticket(2)]);
    expect(ids(removeTicket(list, 1))).toEqual([2]);
    expect(markTicketRead(list, 1)?.pages[0].tickets[0].unreadMessages).toBe(0);
    expect(removeTicket(list, 99)).toBe(list);
    expect(unreadFirst([ticket(1), ticket(2, { unreadMessages: 1 }), ticket(3)]).map((t) => t.id)).toEqual([2, 1, 3]);
  });
});
