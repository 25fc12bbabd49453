import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { ATTENDANT_PERMISSIONS } from '../../../test/fixtures';
import { inboxAuth, ticketFixture } from '../../../test/inbox-fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

type Tickets = ReturnType<typeof ticketFixture>[];

function server(unread: Tickets, routes: Record<string, MockHandler> = {}, auth = inboxAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /tags/list': () => [],
    'GET /users/list': () => [],
    'GET /whatsapp': () => [],
    'GET /queue': () => [],
    'GET /tickets': ({ query }) =>
      query.get('withUnreadMessages') === 'true'
        ? { tickets: unread, hasMore: false, count: unread.length, nextCursor: null }
        : { tickets: [], hasMore: false, count: 0, nextCursor: null },
    'GET /tickets/u/:uuid': ({ path }) => ticketFixture(Number(path.split('-').pop()), { unreadMessages: 0 }),
    'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
    ...routes,
  });
}

const unread = (id: number, overrides: Record<string, unknown> = {}) => ticketFixture(id, { unreadMessages: 2, lastMessage: `Nova ${id}`, ...overrides });

/** Records the notification sound's plays (jsdom has no audio output). */
function recordPlays() {
  const plays: { volume: number; src: string }[] = [];
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
    plays.push({ volume: this.volume, src: this.src });
    return Promise.resolve();
  });
  return plays;
}

beforeEach(async () => {
  await setLanguage('pt');
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('top bar ticket notifications', () => {
  it('lists the unread tickets, puts the count on the title and opens a ticket from the list', async () => {
    const api = server([unread(1), unread(2, { userId: null, user: null, status: 'pending' }), unread(3)]);
    renderApp('/tickets');
    const count = await screen.findByTestId('notifications-count');
    await waitFor(() => expect(count).toHaveAttribute('data-count', '3'));
    expect(document.title).toMatch(/^③ /);
    const request = api.find('GET', '/tickets').find((r) => r.query.get('withUnreadMessages') === 'true');
    expect(request?.query.get('showAll')).toBe('false');

    const user = userEvent.setup();
    await user.click(screen.getByTestId('notifications-button'));
    const list = await screen.findByTestId('notifications-list');
    expect(within(list).getAllByTestId(/^notification-item-/)).toHaveLength(3);
    expect(within(list).getByTestId('notification-item-2')).toHaveTextContent('Contato 2');
    expect(within(list).getByTestId('notification-item-2')).toHaveTextContent('Nova 2');
    await user.click(within(list).getByTestId('notification-item-2'));
    expect(await screen.findByTestId('ticket-view')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/tickets/uuid-2');
    // The ticket being read is not a notification any more.
    await waitFor(() => expect(screen.getByTestId('notifications-count')).toHaveAttribute('data-count', '2'));
    expect(document.title).toMatch(/^② /);
  });

  it('follows live messages and reads: new unread tickets come in, read ones go, with the sound at the stored volume', async () => {
    localStorage.setItem('volume', '0.3');
    const plays = recordPlays();
    server([unread(1)]);
    renderApp('/tickets');
    const count = await screen.findByTestId('notifications-count');
    await waitFor(() => expect(count).toHaveAttribute('data-count', '1'));
    const socket = lastSocket();

    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 1, message: { id: 10, fromMe: false }, ticket: unread(4, { userId: null, user: null, status: 'pending', unreadMessages: 1 }) }));
    await waitFor(() => expect(count).toHaveAttribute('data-count', '2'));
    expect(plays).toHaveLength(1);
    expect(plays[0].volume).toBeCloseTo(0.3);
    expect(plays[0].src).toMatch(/^data:audio\/wav;base64,/);

    // My own reply plays nothing.
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 2, message: { id: 11, fromMe: true }, ticket: unread(4, { unreadMessages: 1 }) }));
    // A message on another attendant's ticket: no sound, no notification.
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 3, message: { id: 12, fromMe: false }, ticket: unread(5, { userId: 9, user: { id: 9, name: 'Outro' } }) }));
    expect(plays).toHaveLength(1);
    expect(count).toHaveAttribute('data-count', '2');

    act(() => socket.serverEmit('company-1-ticket', { action: 'updateUnread', seq: 4, ticketId: 1 }));
    await waitFor(() => expect(count).toHaveAttribute('data-count', '1'));
    act(() => socket.serverEmit('company-1-ticket', { action: 'delete', seq: 5, ticketId: 4 }));
    await waitFor(() => expect(count).toHaveAttribute('data-count', '0'));
    expect(document.title).not.toMatch(/^[①-⑳(]/);
  });

  it('is silent for a new message on the ticket open on a focused page, and at volume 0', async () => {
    const plays = recordPlays();
    vi.spyOn(document, 'hasFocus').mockReturnValue(true);
    server([]);
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('ticket-view');
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 1, message: { id: 10, fromMe: false }, ticket: unread(7) }));
    expect(plays).toHaveLength(0);
    // Another ticket of mine does ring.
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 2, message: { id: 11, fromMe: false }, ticket: unread(8) }));
    expect(plays).toHaveLength(1);
    localStorage.setItem('volume', '0');
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 3, message: { id: 12, fromMe: false }, ticket: unread(9) }));
    expect(plays).toHaveLength(1);
  });

  it('shows more than 20 in parentheses on the title', async () => {
    server(Array.from({ length: 25 }, (_, i) => unread(i + 1)));
    renderApp('/tickets');
    await waitFor(() => expect(document.title).toMatch(/^\(25\) /));
  });

  it('shows an empty popover with no unread tickets', async () => {
    server([]);
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('notifications-button'));
    expect(await screen.findByTestId('notifications-empty')).toHaveTextContent('Nenhuma mensagem nova.');
  });

  it('is not in the top bar without the tickets capability', async () => {
    server([unread(1)], {}, inboxAuth({ permissions: ATTENDANT_PERMISSIONS.filter((p) => p !== 'menu:tickets') }));
    renderApp('/contacts');
    await screen.findByTestId('app-shell');
    expect(screen.queryByTestId('notifications-button')).not.toBeInTheDocument();
  });
});
