import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { stubWidth } from '../../../test/layout';
import { lastSocket } from '../../../test/socket';
import { inboxAuth, messageFixture, QUEUES, ticketFixture } from '../../../test/inbox-fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function viewServer(routes: Record<string, MockHandler> = {}, ticket = ticketFixture(7)) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth(),
    'GET /tags/list': () => [],
    'GET /users/list': () => [
      { id: 1, name: 'Admin' },
      { id: 2, name: 'Bia' },
    ],
    'GET /whatsapp': () => [],
    'GET /queue': () => QUEUES,
    'GET /tickets': () => ({ tickets: [ticket], hasMore: false, count: 1, nextCursor: null }),
    'GET /tickets/u/:uuid': () => ticket,
    'GET /messages/:uuid': () => ({ messages: [messageFixture(1)], hasMore: false, nextCursor: null }),
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/tickets/{uuid}', () => {
  it('joins the ticket room and appends live messages', async () => {
    viewServer();
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    const socket = lastSocket();
    expect(socket.emitted).toEqual(expect.arrayContaining([{ event: 'joinChatBox', args: ['7'] }]));
    act(() => socket.serverEmit('connect'));
    expect(socket.emitted.filter((e) => e.event === 'joinChatBox')).toHaveLength(2);
    act(() => socket.serverEmit('company-1-appMessage', { action: 'create', seq: 9, ticket: ticketFixture(7), message: messageFixture(2, { body: 'ao vivo' }) }));
    expect(await screen.findByTestId('message-2')).toHaveTextContent('ao vivo');
    act(() => socket.serverEmit('company-1-appMessage', { action: 'update', seq: 10, ticket: ticketFixture(7), message: messageFixture(2, { body: 'ao vivo', isDeleted: true }) }));
    expect(await screen.findByTestId('message-deleted-2')).toHaveTextContent('Mensagem apagada pelo contato');
  });

  it('transfers: a queue is required, then user and message go along', async () => {
    const server = viewServer({ 'PUT /tickets/:id': ({ body }) => ({ ...ticketFixture(7), ...(body as object), userId: 2, user: { id: 2, name: 'Bia' } }) });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-transfer'));
    const dialog = await screen.findByTestId('transfer-dialog');
    await user.click(within(dialog).getByTestId('transfer-submit'));
    expect(await within(dialog).findByText('Selecione uma fila')).toBeInTheDocument();
    expect(server.find('PUT', '/tickets/7')).toHaveLength(0);
    const [queueSelect, userSelect] = within(dialog).getAllByRole('combobox');
    fireEvent.mouseDown(queueSelect);
    await user.click(await screen.findByRole('option', { name: 'Vendas' }));
    fireEvent.mouseDown(userSelect);
    await user.click(await screen.findByRole('option', { name: 'Bia' }));
    await user.type(within(dialog).getByTestId('transfer-message'), 'Cliente de vendas');
    await user.click(within(dialog).getByTestId('transfer-submit'));
    await waitFor(() => expect(server.find('PUT', '/tickets/7')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/7')[0].body).toEqual({ status: 'open', userId: 2, queueId: 2, isTransfered: true, msgTransfer: 'Cliente de vendas' });
    await waitFor(() => expect(window.location.pathname).toBe('/tickets'));
  });

  it('deletes with the capability after confirmation', async () => {
    const server = viewServer({ 'DELETE /tickets/:id': () => undefined });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-delete'));
    await user.click(await screen.findByTestId('ticket-delete-confirm-confirm'));
    await waitFor(() => expect(server.find('DELETE', '/tickets/7')).toHaveLength(1));
    await waitFor(() => expect(window.location.pathname).toBe('/tickets'));
  });

  it('toggles the integration', async () => {
    const server = viewServer({ 'PUT /tickets/:id': ({ body }) => ({ ...ticketFixture(7), ...(body as object) }) });
    renderApp('/tickets/uuid-7');
    await userEvent.setup().click(await screen.findByTestId('ticket-header-integration'));
    await waitFor(() => expect(server.find('PUT', '/tickets/7')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/7')[0].body).toEqual({ useIntegration: true });
  });

  it('resolves without farewell from the header', async () => {
    const server = viewServer({
      'PUT /tickets/:id': ({ body }) => ({ ...ticketFixture(7), ...(body as object) }),
      'DELETE /tickets/:id': () => undefined,
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-resolve'));
    await user.click(await screen.findByTestId('resolve-without-farewell'));
    await waitFor(() => expect(server.find('PUT', '/tickets/7')).toHaveLength(1));
    expect(server.find('PUT', '/tickets/7')[0].body).toEqual({ status: 'closed', userId: 1, sendFarewellMessage: false });
    await waitFor(() => expect(window.location.pathname).toBe('/tickets'));
  });

  it('shows the ticket log and the contact drawer notes (list, add, delete)', async () => {
    let notes = [{ id: 1, note: 'Cliente antigo', user: { id: 1, name: 'Admin' }, ticketId: 7, contactId: 107, createdAt: '2026-01-01T10:00:00Z' }];
    const server = viewServer({
      'GET /tickets-log/:id': () => [
        { id: 1, type: 'create', user: null, queue: null, createdAt: '2026-01-01T10:00:00Z' },
        { id: 2, type: 'open', user: { id: 1, name: 'Admin' }, queue: QUEUES[0], createdAt: '2026-01-01T10:05:00Z' },
      ],
      'GET /ticket-notes/list': () => notes,
      'POST /ticket-notes': ({ body }) => {
        const b = body as { note: string };
        notes = [...notes, { ...notes[0], id: 2, note: b.note }];
        return notes[1];
      },
      'DELETE /ticket-notes/:id': () => {
        notes = notes.filter((n) => n.id !== 1);
        return undefined;
      },
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-log'));
    const log = await screen.findByTestId('ticket-log-dialog');
    expect(await within(log).findAllByTestId('ticket-log-entry')).toHaveLength(2);
    expect(log).toHaveTextContent('Admin aceitou o ticket');
    await user.click(within(log).getByRole('button', { name: 'Fechar' }));

    await user.click(screen.getByTestId('ticket-contact'));
    expect(await screen.findByTestId('note-1')).toHaveTextContent('Cliente antigo');
    expect(server.find('GET', '/ticket-notes/list')[0].query.get('contactId')).toBe('107');
    await user.type(screen.getByTestId('note-input'), 'x');
    await user.click(screen.getByTestId('note-add'));
    expect(await screen.findByText('Muito curto!')).toBeInTheDocument();
    await user.type(screen.getByTestId('note-input'), 'y nova');
    await user.click(screen.getByTestId('note-add'));
    await waitFor(() => expect(server.find('POST', '/ticket-notes')).toHaveLength(1));
    expect(server.find('POST', '/ticket-notes')[0].body).toEqual({ note: 'xy nova', ticketId: 7, contactId: 107 });
    expect(await screen.findByTestId('note-2')).toHaveTextContent('xy nova');
    await user.click(screen.getByTestId('note-delete-1'));
    await waitFor(() => expect(screen.queryByTestId('note-1')).not.toBeInTheDocument());
  });

  it('sets the contact tags from the drawer', async () => {
    const server = viewServer({
      'GET /tags/list': () => [
        { id: 1, name: 'VIP', color: '#000', kanban: 0 },
        { id: 2, name: 'Lead', color: '#111', kanban: 0 },
      ],
      'GET /ticket-notes/list': () => [],
      'POST /tags/sync': () => ({}),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-contact'));
    await user.click(screen.getByTestId('contact-tags'));
    await user.click(await screen.findByRole('option', { name: 'Lead' }));
    await waitFor(() => expect(server.find('POST', '/tags/sync')).toHaveLength(1));
    expect(server.find('POST', '/tags/sync')[0].body).toEqual({ contactId: 107, tags: [{ id: 2 }] });
    expect(await within(screen.getByTestId('contact-drawer')).findByText('Lead')).toBeInTheDocument();
  });

  it('goes back to the list with a notice for a ticket that does not exist (/tickets/undefined)', async () => {
    viewServer({ 'GET /tickets/u/:uuid': () => reply(404, { error: 'ERR_NO_TICKET_FOUND', message: 'Ticket not found.' }) });
    renderApp('/tickets/undefined');
    const notice = await screen.findByTestId('tickets-missing-notice');
    expect(notice).toHaveTextContent('Este ticket não existe ou você não tem acesso a ele.');
    expect(window.location.pathname).toBe('/tickets');
    expect(await screen.findByTestId('ticket-item-7')).toBeInTheDocument();
    expect(screen.getByTestId('ticket-placeholder')).toBeInTheDocument();
    expect(screen.queryByTestId('ticket-not-found')).not.toBeInTheDocument();
    await userEvent.setup().click(within(notice).getByRole('button', { name: 'Fechar' }));
    await waitFor(() => expect(screen.queryByTestId('tickets-missing-notice')).not.toBeInTheDocument());
  });

  it('keeps the contact in a narrow header and puts the actions that do not fit in the "more" menu', async () => {
    // A 390 px header: back button, the contact's 160 px, three actions and "more".
    const restore = stubWidth(390);
    try {
      viewServer({ 'GET /tickets-log/:id': () => [] });
      renderApp('/tickets/uuid-7');
      const actions = await screen.findByTestId('ticket-header-actions');
      expect(within(actions).getByTestId('ticket-header-resolve')).toBeInTheDocument();
      expect(within(actions).getByTestId('ticket-header-transfer')).toBeInTheDocument();
      expect(within(actions).queryByTestId('ticket-header-log')).not.toBeInTheDocument();
      const user = userEvent.setup();
      await user.click(within(actions).getByTestId('ticket-header-more'));
      const menu = await screen.findByTestId('ticket-header-menu');
      const items = within(menu).getAllByRole('menuitem').map((item) => item.getAttribute('data-testid'));
      expect(items).toEqual(expect.arrayContaining(['ticket-header-meeting', 'ticket-header-pdf', 'ticket-header-log', 'ticket-header-delete']));
      expect(items).not.toContain('ticket-header-resolve');
      await user.click(within(menu).getByTestId('ticket-header-log'));
      expect(await screen.findByTestId('ticket-log-dialog')).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it('uses a tab view of ticket and list on narrow screens', async () => {
    const matchMedia = window.matchMedia;
    window.matchMedia = vi.fn((query: string) => ({ ...matchMedia(query), matches: /max-width:\s*766/.test(query) || /min-width/.test(query) })) as typeof window.matchMedia;
    try {
      viewServer();
      renderApp('/tickets');
      const page = await screen.findByTestId('tickets-page');
      expect(page).toHaveAttribute('data-layout', 'mobile');
      expect(await screen.findByTestId('ticket-item-7')).toBeInTheDocument();
      const user = userEvent.setup();
      await user.click(screen.getByTestId('tickets-mobile-ticket'));
      expect(await screen.findByTestId('ticket-placeholder')).toBeInTheDocument();
      await user.click(screen.getByTestId('ticket-select'));
      await user.click(await screen.findByTestId('ticket-item-7'));
      expect(await screen.findByTestId('ticket-view')).toBeInTheDocument();
    } finally {
      window.matchMedia = matchMedia;
    }
  });
});
