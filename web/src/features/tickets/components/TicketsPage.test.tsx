import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { inboxAuth, ticketFixture } from '../../../test/inbox-fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

type Tickets = ReturnType<typeof ticketFixture>[];

function inboxServer(byStatus: Record<string, Tickets>, routes: Record<string, MockHandler> = {}, auth = inboxAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /tags/list': () => [],
    'GET /users/list': () => [{ id: 1, name: 'Admin' }],
    'GET /whatsapp': () => [{ id: 3, name: 'Comercial', channel: 'whatsapp', status: 'CONNECTED' }],
    'GET /queue': () => [],
    'GET /tickets': ({ query }) => ({ tickets: byStatus[query.get('status') ?? 'search'] ?? [], hasMore: false, count: 0, nextCursor: null }),
    ...routes,
  });
}

const ticketsRequests = (server: ReturnType<typeof mockServer>, status: string) => server.find('GET', '/tickets').filter((r) => r.query.get('status') === status);

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/tickets list', () => {
  it('renders items with truncation, time, owner, unread badge and unread first', async () => {
    const longName = 'N'.repeat(70);
    const longMessage = 'M'.repeat(50);
    inboxServer({
      open: [
        ticketFixture(1, { contact: { ...ticketFixture(1).contact, name: longName }, lastMessage: longMessage, updatedAt: '2025-03-04T12:00:00Z' }),
        ticketFixture(2, { unreadMessages: 3, tags: [{ id: 9, name: 'VIP', color: '#000', kanban: 0 }] }),
      ],
    });
    renderApp('/tickets');
    const first = await screen.findByTestId('ticket-item-1');
    expect(within(first).getByTestId('ticket-item-name')).toHaveTextContent(`${'N'.repeat(60)}...`);
    expect(within(first).getByTestId('ticket-item-last')).toHaveTextContent(`${'M'.repeat(40)}...`);
    expect(within(first).getByTestId('ticket-item-time')).toHaveTextContent('04/03/2025');
    expect(within(first).getByTestId('ticket-item-owner')).toHaveTextContent('Admin');
    expect(within(first).getByTestId('ticket-item-connection')).toHaveTextContent('Comercial');
    expect(within(first).getByTestId('ticket-item-queue')).toHaveTextContent('Suporte');
    const second = screen.getByTestId('ticket-item-2');
    expect(within(second).getByTestId('ticket-item-time').textContent).toMatch(/^\d{2}:\d{2}$/);
    expect(within(second).getByTestId('ticket-item-unread')).toHaveTextContent('3');
    expect(within(second).getByTestId('ticket-item-tag')).toHaveTextContent('VIP');
    // Unread first on load.
    const items = screen.getAllByTestId(/^ticket-item-\d+$/);
    expect(items.map((i) => i.getAttribute('data-testid'))).toEqual(['ticket-item-2', 'ticket-item-1']);
  });

  it('hides the owner tag from plain users and shows the group tab only with allowGroup', async () => {
    inboxServer(
      { open: [ticketFixture(1)], pending: [ticketFixture(2, { status: 'pending', userId: null, user: null })] },
      {},
      inboxAuth({ user: { profile: 'user', super: false, allowGroup: false }, permissions: ['menu:tickets'] }),
    );
    renderApp('/tickets');
    const item = await screen.findByTestId('ticket-item-1');
    expect(within(item).queryByTestId('ticket-item-owner')).not.toBeInTheDocument();
    expect(screen.queryByTestId('tickets-tab-group')).not.toBeInTheDocument();
    expect(screen.queryByTestId('tickets-show-all')).not.toBeInTheDocument();
    // Without tickets:close-pending a pending ticket can be accepted but not ignored.
    await userEvent.setup().click(screen.getByTestId('tickets-tab-pending'));
    expect(await screen.findByTestId('ticket-accept-2')).toBeInTheDocument();
    expect(screen.queryByTestId('ticket-ignore-2')).not.toBeInTheDocument();
  });

  it('shows the group tab with allowGroup and ignores pending tickets with tickets:close-pending', async () => {
    const server = inboxServer(
      { open: [], pending: [ticketFixture(2, { status: 'pending', userId: null, user: null })], group: [ticketFixture(3, { status: 'group', isGroup: true })] },
      { 'PUT /tickets/:id': ({ body }) => ({ ...ticketFixture(2), ...(body as object) }) },
      inboxAuth({ user: { allowGroup: true } }),
    );
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-tab-group'));
    expect(await screen.findByTestId('ticket-item-3')).toBeInTheDocument();
    await user.click(screen.getByTestId('tickets-tab-pending'));
    await user.click(await screen.findByTestId('ticket-ignore-2'));
    await waitFor(() => expect(server.find('PUT', '/tickets/2')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/2')[0].body).toEqual({ status: 'closed', sendFarewellMessage: false });
  });

  it('saves the panel width (404 to 700) after a drag', async () => {
    const server = inboxServer({ open: [] }, { 'PUT /users/toggleChangeWidht/:id': () => ({}) }, inboxAuth({ user: { defaultTicketsManagerWidth: 600 } }));
    renderApp('/tickets');
    const panel = await screen.findByTestId('tickets-panel');
    expect(panel).toHaveAttribute('data-width', '600');
    const resizer = screen.getByTestId('tickets-resizer');
    fireEvent.pointerDown(resizer, { clientX: 600 });
    fireEvent.pointerMove(window, { clientX: 900 });
    fireEvent.pointerUp(window, { clientX: 900 });
    await waitFor(() => expect(server.find('PUT', '/users/toggleChangeWidht/1')).toHaveLength(1));
    expect(server.find('PUT', '/users/toggleChangeWidht/1')[0].body).toEqual({ defaultTicketsManagerWidth: 700 });
    expect(screen.getByTestId('tickets-panel')).toHaveAttribute('data-width', '700');
  });

  it('shows the empty state and asks each tab for its status with the selected queues', async () => {
    const server = inboxServer({ open: [], pending: [ticketFixture(5, { status: 'pending', userId: null, user: null })] });
    renderApp('/tickets');
    expect(await screen.findByTestId('tickets-empty')).toHaveTextContent('Nada aqui!');
    const open = ticketsRequests(server, 'open')[0];
    expect(open.query.get('queueIds')).toBe('[1,2]');
    expect(open.query.get('sortTickets')).toBe('DESC');
    expect(open.query.get('showAll')).toBe('false');
    await userEvent.setup().click(screen.getByTestId('tickets-tab-pending'));
    expect(await screen.findByTestId('ticket-item-5')).toBeInTheDocument();
    expect(ticketsRequests(server, 'pending')).toHaveLength(1);
  });

  it('loads the next page within 100 px of the bottom using nextCursor', async () => {
    const server = inboxServer({}, {
      'GET /tickets': ({ query }) => {
        const cursor = query.get('cursor');
        const base = cursor ? 20 : 0;
        return { tickets: Array.from({ length: 20 }, (_, i) => ticketFixture(base + i + 1)), hasMore: !cursor, count: cursor ? null : 40, nextCursor: cursor ? null : 'abc' };
      },
    });
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-1');
    const list = screen.getByTestId('tickets-list-open');
    Object.defineProperty(list, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(list, 'clientHeight', { configurable: true, value: 400 });
    list.scrollTop = 300;
    fireEvent.scroll(list);
    list.scrollTop = 520;
    fireEvent.scroll(list);
    expect(await screen.findByTestId('ticket-item-40')).toBeInTheDocument();
    // (The top bar's notification bell asks for the unread tickets on its own.)
    const listRequests = server.find('GET', '/tickets').filter((r) => !r.query.has('withUnreadMessages'));
    expect(listRequests.map((r) => r.query.get('cursor'))).toEqual([null, 'abc']);
  });
});

describe('/tickets last message', () => {
  it('shows WhatsApp formatting in the preview, cut at 40 visible characters', async () => {
    inboxServer({ open: [ticketFixture(1, { lastMessage: '*negrito* _itálico_ ~riscado~ ```mono``` 2*3*4 e mais texto depois' })] });
    renderApp('/tickets');
    const last = within(await screen.findByTestId('ticket-item-1')).getByTestId('ticket-item-last');
    expect(last).toHaveTextContent('negrito itálico riscado mono 2*3*4 e mai...');
    expect(last.querySelector('strong')).toHaveTextContent('negrito');
    expect(last.querySelector('em')).toHaveTextContent('itálico');
    expect(last.querySelector('s')).toHaveTextContent('riscado');
    expect(last.querySelector('code')).toHaveTextContent('mono');
  });

  it('says the last message was deleted, and follows a deletion live', async () => {
    inboxServer({ open: [ticketFixture(1, { lastMessage: 'segredo' }), ticketFixture(2, { lastMessage: 'errado', lastMessageDeleted: true, lastMessageFromMe: true })] });
    renderApp('/tickets');
    const own = within(await screen.findByTestId('ticket-item-2')).getByTestId('ticket-item-last');
    expect(own).toHaveTextContent('Essa mensagem foi apagada');
    expect(own).not.toHaveTextContent('errado');
    expect(within(screen.getByTestId('ticket-item-1')).getByTestId('ticket-item-last')).toHaveTextContent('segredo');
    // The contact deletes it: the message's update event carries the ticket as it now is.
    act(() =>
      lastSocket().serverEmit('company-1-appMessage', {
        action: 'update',
        seq: 1,
        ticket: ticketFixture(1, { lastMessage: 'segredo', lastMessageDeleted: true, lastMessageFromMe: false }),
        message: { id: 5, isDeleted: true },
      }),
    );
    await waitFor(() => expect(within(screen.getByTestId('ticket-item-1')).getByTestId('ticket-item-last')).toHaveTextContent('Mensagem apagada pelo contato'));
    expect(within(screen.getByTestId('ticket-item-1')).getByTestId('ticket-item-last')).not.toHaveTextContent('segredo');
  });
});

describe('/tickets media preview', () => {
  it("names a caption-less file's kind in the reader's language, and a captioned one by its caption", async () => {
    inboxServer({
      open: [
        ticketFixture(1, { lastMessage: '📷 Imagem', lastMessageMedia: 'image' }),
        ticketFixture(2, { lastMessage: 'segue o *boleto*', lastMessageMedia: null }),
        ticketFixture(3, { lastMessage: '📞 Chamada perdida', lastMessageMedia: 'call_log' }),
        ticketFixture(4, { lastMessage: '⚠️ Mensagens podem estar faltando', lastMessageMedia: 'gap' }),
      ],
    });
    try {
      await setLanguage('en');
      renderApp('/tickets');
      const last = async (id: number) => within(await screen.findByTestId(`ticket-item-${id}`)).getByTestId('ticket-item-last');
      expect(await last(1)).toHaveTextContent('📷 Photo');
      expect(await last(2)).toHaveTextContent('segue o boleto');
      expect(await last(3)).toHaveTextContent('📞 Missed call');
      expect(await last(4)).toHaveTextContent('⚠️ Messages may be missing');
    } finally {
      await setLanguage('pt');
    }
  });
});

describe('/tickets search', () => {
  it('searches message bodies as the placeholder says, unless narrowed in the filters', async () => {
    const server = inboxServer({ search: [ticketFixture(5, { lastMessage: 'segunda via do boleto' })] });
    const user = userEvent.setup();
    renderApp('/tickets');
    const box = await screen.findByTestId('tickets-search');
    expect(box).toHaveAttribute('placeholder', 'Buscar atendimento e mensagens');
    await user.type(box, 'boleto');
    const searches = () => server.find('GET', '/tickets').filter((r) => r.query.get('searchParam') === 'boleto');
    await waitFor(() => expect(searches().length).toBeGreaterThan(0), { timeout: 3000 });
    expect(await screen.findByTestId('ticket-item-5')).toBeInTheDocument();
    expect(searches().every((r) => r.query.get('searchOnMessages') === 'true')).toBe(true);
    await user.click(screen.getByTestId('tickets-filters-toggle'));
    // The filter panel is a chunk of its own, loaded when first opened.
    await user.click(within(await screen.findByTestId('tickets-search-on-messages')).getByRole('switch'));
    await waitFor(() => expect(searches().some((r) => !r.query.has('searchOnMessages'))).toBe(true));
  });
});

describe('/tickets realtime', () => {
  it('inserts, moves and removes tickets by the tab rules', async () => {
    inboxServer({ open: [ticketFixture(1), ticketFixture(2)] });
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-2');
    const socket = lastSocket();
    // A new open ticket of mine goes on top.
    act(() => socket.serverEmit('company-1-ticket', { action: 'update', seq: 1, ticket: ticketFixture(3, { lastMessage: 'Nova' }) }));
    await waitFor(() => expect(screen.getAllByTestId(/^ticket-item-\d+$/)[0]).toHaveAttribute('data-testid', 'ticket-item-3'));
    // A ticket that became pending leaves the open tab.
    act(() => socket.serverEmit('company-1-ticket', { action: 'update', seq: 2, ticket: ticketFixture(1, { status: 'pending', userId: null, user: null }) }));
    await waitFor(() => expect(screen.queryByTestId('ticket-item-1')).not.toBeInTheDocument());
    // A ticket whose queue is not selected is removed.
    act(() => socket.serverEmit('company-1-ticket', { action: 'update', seq: 3, ticket: ticketFixture(2, { queueId: 99, queue: { id: 99, name: 'Outra', color: '#000' } }) }));
    await waitFor(() => expect(screen.queryByTestId('ticket-item-2')).not.toBeInTheDocument());
    // A new message brings its ticket up with the new last message and unread count.
    act(() =>
      socket.serverEmit('company-1-appMessage', { action: 'create', seq: 4, ticket: ticketFixture(4, { lastMessage: 'Oi!', unreadMessages: 1 }), message: { id: 1 } }),
    );
    expect(await screen.findByTestId('ticket-item-4')).toHaveTextContent('Oi!');
    act(() => socket.serverEmit('company-1-ticket', { action: 'updateUnread', seq: 5, ticketId: 4 }));
    await waitFor(() => expect(within(screen.getByTestId('ticket-item-4')).queryByTestId('ticket-item-unread')).not.toBeInTheDocument());
    act(() => socket.serverEmit('company-1-ticket', { action: 'delete', seq: 6, ticketId: 3 }));
    await waitFor(() => expect(screen.queryByTestId('ticket-item-3')).not.toBeInTheDocument());
  });

  it('on reconnect sends sync with the last seq and applies the returned events', async () => {
    inboxServer({ open: [ticketFixture(1)] });
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-1');
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-ticket', { action: 'updateUnread', seq: 41, ticketId: 1 }));
    act(() => socket.serverEmit('connect'));
    const sync = socket.emitted.find((e) => e.event === 'sync');
    expect(sync?.args[0]).toEqual({ lastSeq: 41 });
    const ack = sync?.args[1] as (answer: unknown) => void;
    act(() =>
      ack({
        events: [
          { event: 'company-1-ticket', payload: { action: 'update', seq: 42, ticket: ticketFixture(8, { lastMessage: 'perdida' }) } },
          { event: 'company-1-ticket', payload: { action: 'delete', seq: 43, ticketId: 1 } },
        ],
      }),
    );
    expect(await screen.findByTestId('ticket-item-8')).toHaveTextContent('perdida');
    await waitFor(() => expect(screen.queryByTestId('ticket-item-1')).not.toBeInTheDocument());
    // The next reconnection asks from the last replayed event.
    act(() => socket.serverEmit('connect'));
    expect(socket.emitted.filter((e) => e.event === 'sync').map((e) => e.args[0])).toEqual([{ lastSeq: 41 }, { lastSeq: 43 }]);
  });

  it('refetches every list when sync answers refresh', async () => {
    const server = inboxServer({ open: [ticketFixture(1)] });
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-1');
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-ticket', { action: 'updateUnread', seq: 3, ticketId: 1 }));
    act(() => socket.serverEmit('connect'));
    const sync = socket.emitted.find((e) => e.event === 'sync');
    const before = ticketsRequests(server, 'open').length;
    act(() => (sync?.args[1] as (answer: unknown) => void)({ refresh: true }));
    await waitFor(() => expect(ticketsRequests(server, 'open').length).toBeGreaterThan(before));
  });

  it('reads the lists again when an old-message import ends, not on its progress reports', async () => {
    const byStatus: Record<string, Tickets> = { open: [ticketFixture(1)] };
    const server = inboxServer(byStatus);
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-1');
    const socket = lastSocket();
    const before = ticketsRequests(server, 'open').length;
    act(() => socket.serverEmit('importMessages-1', { action: 'update', seq: 5, status: { this: 10, all: 20, date: null, whatsappId: 3 } }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(ticketsRequests(server, 'open')).toHaveLength(before);
    byStatus.open = [ticketFixture(1), ticketFixture(7, { lastMessage: 'importada' })];
    act(() => socket.serverEmit('importMessages-1', { action: 'refresh', seq: 6, whatsappId: 3 }));
    expect(await screen.findByTestId('ticket-item-7')).toHaveTextContent('importada');
    // The import's seq is not the inbox's: a reconnection still syncs from nothing seen.
    act(() => socket.serverEmit('connect'));
    expect(socket.emitted.some((e) => e.event === 'sync')).toBe(false);
  });
});

describe('/tickets actions', () => {
  it('accept puts the ticket open for me and opens it', async () => {
    const pending = ticketFixture(7, { status: 'pending', userId: null, user: null });
    const server = inboxServer(
      { open: [], pending: [pending] },
      {
        'PUT /tickets/:id': ({ body }) => ({ ...pending, ...(body as object), user: { id: 1, name: 'Admin' } }),
        'GET /tickets/u/:uuid': () => ticketFixture(7),
        'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
      },
    );
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-tab-pending'));
    await user.click(await screen.findByTestId('ticket-accept-7'));
    await waitFor(() => expect(server.find('PUT', '/tickets/7')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/7')[0].body).toEqual({ status: 'open', userId: 1 });
    expect(await screen.findByTestId('ticket-view')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/tickets/uuid-7');
  });

  it('resolve asks about the farewell and closes with the choice; return and reopen call the API', async () => {
    const server = inboxServer(
      { open: [ticketFixture(7), ticketFixture(8)], closed: [ticketFixture(9, { status: 'closed' })] },
      { 'PUT /tickets/:id': ({ path, body }) => ({ ...ticketFixture(Number(path.split('/').pop())), ...(body as object) }) },
    );
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-resolve-7'));
    await user.click(await screen.findByTestId('resolve-with-farewell'));
    await waitFor(() => expect(server.find('PUT', '/tickets/7')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/7')[0].body).toEqual({ status: 'closed', userId: 1, sendFarewellMessage: true });

    await user.click(screen.getByTestId('ticket-return-8'));
    await waitFor(() => expect(server.find('PUT', '/tickets/8')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/8')[0].body).toEqual({ status: 'pending', userId: null });

    await user.click(screen.getByTestId('tickets-tab-closed'));
    await user.click(await screen.findByTestId('ticket-reopen-9'));
    await waitFor(() => expect(server.find('PUT', '/tickets/9')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/9')[0].body).toEqual({ status: 'open', userId: 1 });
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/uuid-9'));
  });

  it('accepting a ticket another attendant owns shows who has it', async () => {
    const pending = ticketFixture(7, { status: 'pending', userId: null, user: null });
    inboxServer(
      { open: [], pending: [pending] },
      { 'PUT /tickets/:id': () => ({ ...pending, status: 'open', userId: 5, user: { id: 5, name: 'Bia' } }) },
    );
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-tab-pending'));
    await user.click(await screen.findByTestId('ticket-accept-7'));
    expect(await screen.findByTestId('ticket-already-open')).toHaveTextContent('Bia');
    expect(screen.getByTestId('ticket-already-open')).toHaveTextContent('Suporte');
  });
});

describe('close all', () => {
  it('admins close every ticket of the tab in the selected queues', async () => {
    const server = inboxServer({ open: [ticketFixture(1)] }, { 'POST /tickets/closeAll': () => ({ closed: 4 }) }, inboxAuth({ permissions: ['menu:tickets', 'tickets-manager:closeAll'] }));
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-close-all'));
    await user.click(await screen.findByTestId('tickets-close-all-confirm-confirm'));
    await waitFor(() => expect(server.find('POST', '/tickets/closeAll')).toHaveLength(1));
    expect(server.find('POST', '/tickets/closeAll')[0].body).toEqual({ status: 'open', selectedQueueIds: [1, 2] });
    expect(await screen.findByText('4 ticket(s) fechado(s)')).toBeInTheDocument();
  });

  it('is hidden from whom the policy does not allow it (plain users)', async () => {
    inboxServer({ open: [ticketFixture(1)] }, {}, inboxAuth({ user: { profile: 'user', super: false } }));
    renderApp('/tickets');
    await screen.findByTestId('ticket-item-1');
    expect(screen.queryByTestId('tickets-close-all')).not.toBeInTheDocument();
  });
});

describe('new ticket', () => {
  async function fillNewTicket() {
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-new'));
    const dialog = await screen.findByTestId('new-ticket-dialog');
    await user.type(within(dialog).getByTestId('new-ticket-contact'), 'Mar');
    await user.click(await screen.findByText('Maria - 5511988887777', {}, { timeout: 3000 }));
    fireEvent.mouseDown(within(dialog).getAllByRole('combobox')[1]);
    await user.click(await screen.findByRole('option', { name: 'Vendas' }));
    await user.click(within(dialog).getByTestId('new-ticket-submit'));
    return dialog;
  }

  it('a 409 for another attendant shows the "ticket already open" dialog with owner and queue', async () => {
    const server = inboxServer(
      { open: [] },
      {
        'GET /contacts/list': () => [{ id: 50, name: 'Maria', number: '5511988887777' }],
        'POST /tickets': () =>
          reply(409, { error: 'ERR_OTHER_OPEN_TICKET', message: 'open', ticket: { id: 70, uuid: 'uuid-70', userId: 5, user: { id: 5, name: 'Bia' }, queue: { id: 2, name: 'Vendas', color: '#0f0' } } }),
      },
      inboxAuth({ user: { whatsappId: 3 } }),
    );
    renderApp('/tickets');
    await fillNewTicket();
    const info = await screen.findByTestId('ticket-already-open');
    expect(info).toHaveTextContent('Bia');
    expect(info).toHaveTextContent('Vendas');
    expect(server.find('POST', '/tickets')[0].body).toEqual({ contactId: 50, queueId: 2, whatsappId: 3, userId: 1, status: 'open' });
    expect(server.find('GET', '/contacts/list').every((r) => (r.query.get('searchParam') ?? '').length >= 3)).toBe(true);
  });

  it('an admin in no queue opens a ticket without one (no queue to choose)', async () => {
    const server = inboxServer(
      { open: [] },
      {
        'GET /contacts/list': () => [{ id: 50, name: 'Maria', number: '5511988887777' }],
        'POST /tickets': () => ticketFixture(71, { uuid: 'uuid-71', queueId: null }),
        'GET /tickets/u/:uuid': () => ticketFixture(71, { uuid: 'uuid-71', queueId: null }),
        'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
      },
      inboxAuth({ user: { whatsappId: 3, queues: [], queueIds: [] } }),
    );
    renderApp('/tickets');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tickets-new'));
    const dialog = await screen.findByTestId('new-ticket-dialog');
    expect(within(dialog).queryByTestId('new-ticket-queue')).not.toBeInTheDocument();
    await user.type(within(dialog).getByTestId('new-ticket-contact'), 'Mar');
    await user.click(await screen.findByText('Maria - 5511988887777', {}, { timeout: 3000 }));
    await user.click(within(dialog).getByTestId('new-ticket-submit'));
    await waitFor(() => expect(server.find('POST', '/tickets')).toHaveLength(1));
    expect(server.find('POST', '/tickets')[0].body).toEqual({ contactId: 50, queueId: null, whatsappId: 3, userId: 1, status: 'open' });
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/uuid-71'));
  });

  it('a 409 for my own ticket opens it', async () => {
    inboxServer(
      { open: [] },
      {
        'GET /contacts/list': () => [{ id: 50, name: 'Maria', number: '5511988887777' }],
        'POST /tickets': () => reply(409, { error: 'ERR_OTHER_OPEN_TICKET', message: 'open', ticket: { id: 70, uuid: 'uuid-70', userId: 1, user: { id: 1, name: 'Admin' }, queue: null } }),
        'GET /tickets/u/:uuid': () => ticketFixture(70),
        'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
      },
      inboxAuth({ user: { whatsappId: 3 } }),
    );
    renderApp('/tickets');
    await fillNewTicket();
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/uuid-70'));
    expect(screen.queryByTestId('ticket-already-open')).not.toBeInTheDocument();
  });
});
