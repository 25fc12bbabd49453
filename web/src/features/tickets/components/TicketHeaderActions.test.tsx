import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { stubObjectUrls } from '../../../test/object-urls';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
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
    'POST /tickets/:id/read': () => undefined,
    ...routes,
  });
}

let urls: ReturnType<typeof stubObjectUrls>;
let focused = true;
beforeEach(async () => {
  urls = stubObjectUrls();
  focused = true;
  vi.spyOn(document, 'hasFocus').mockImplementation(() => focused);
  await setLanguage('pt');
});
afterEach(() => {
  urls.restore();
  vi.restoreAllMocks();
});

describe('ticket header: export to PDF', () => {
  it('loads every page of messages with progress, then downloads ticket-<id>.pdf', async () => {
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    let releaseOlder: () => void = () => undefined;
    const older = new Promise<void>((resolve) => (releaseOlder = resolve));
    const server = viewServer({
      'GET /messages/:uuid': ({ query }) =>
        query.get('cursor') === 'older'
          ? { messages: [messageFixture(1, { body: 'primeira' })], hasMore: false, nextCursor: null }
          : { messages: [messageFixture(2, { body: 'segunda' }), messageFixture(3, { body: 'terceira' })], hasMore: true, nextCursor: 'older', count: 3 },
    });
    // The older page answers only when the test says so: the progress can be seen meanwhile.
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).includes('cursor=older')) await older;
      return server.fetch(input, init);
    });
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-3');
    await userEvent.setup().click(screen.getByTestId('ticket-header-pdf'));
    const dialog = await screen.findByTestId('export-pdf-dialog');
    expect(await within(dialog).findByText('2 de 3 mensagens carregadas')).toBeInTheDocument();
    expect(downloads).toEqual([]);
    releaseOlder();
    await waitFor(() => expect(downloads).toEqual(['ticket-7.pdf']));
    await waitFor(() => expect(screen.queryByTestId('export-pdf-dialog')).not.toBeInTheDocument());
    const blob = urls.createObjectURL.mock.calls[urls.createObjectURL.mock.calls.length - 1][0];
    expect(blob.type).toBe('application/pdf');
    expect(blob.size).toBeGreaterThan(1000);
    const cursors = server.find('GET', '/messages/uuid-7').map((r) => r.query.get('cursor'));
    expect(cursors).toContain('older');
  });

  it('shows the error and closes when the messages cannot be loaded', async () => {
    let calls = 0;
    viewServer({
      'GET /messages/:uuid': () => {
        calls += 1;
        return calls === 1 ? { messages: [messageFixture(1)], hasMore: false, nextCursor: null } : reply(404, { error: 'ERR_NO_TICKET_FOUND', message: 'no' });
      },
    });
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    await userEvent.setup().click(screen.getByTestId('ticket-header-pdf'));
    expect(await screen.findByText('Nenhum ticket encontrado.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('export-pdf-dialog')).not.toBeInTheDocument());
    expect(urls.createObjectURL).not.toHaveBeenCalled();
  });
});

describe('ticket header: meeting link', () => {
  it('sends the ticket meeting link after confirmation', async () => {
    const server = viewServer({
      'POST /messages/:ticketId': ({ body }) => messageFixture(50, { fromMe: true, userId: 1, body: (body as { body: string }).body }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-meeting'));
    const dialog = await screen.findByTestId('meeting-dialog');
    expect(within(dialog).getByTestId('meeting-link')).toHaveTextContent('https://meet.jit.si/chatflow-1-uuid7');
    await user.click(within(dialog).getByTestId('meeting-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('meeting-dialog')).not.toBeInTheDocument());
    expect(server.find('POST', '/messages/7')).toHaveLength(0);

    await user.click(screen.getByTestId('ticket-header-meeting'));
    await user.click(within(await screen.findByTestId('meeting-dialog')).getByTestId('meeting-dialog-confirm'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    expect(server.find('POST', '/messages/7')[0].body).toEqual({ body: 'Vamos conversar por vídeo? Entre na reunião: https://meet.jit.si/chatflow-1-uuid7' });
    expect(await screen.findByTestId('message-50')).toHaveTextContent('https://meet.jit.si/chatflow-1-uuid7');
  });

  it('is offered only while the user can write', async () => {
    viewServer({}, ticketFixture(7, { status: 'closed' }));
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('ticket-header-pdf')).toBeInTheDocument();
    expect(screen.queryByTestId('ticket-header-meeting')).not.toBeInTheDocument();
  });
});

describe('ticket view: read while open', () => {
  const create = (id: number, overrides: Record<string, unknown> = {}, ticket = ticketFixture(7, { unreadMessages: 1 })) => ({
    action: 'create',
    seq: 100 + id,
    ticket,
    message: messageFixture(id, overrides),
  });

  it('marks the open ticket read once per burst of contact messages on a focused page', async () => {
    const server = viewServer();
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    const socket = lastSocket();
    act(() => {
      socket.serverEmit('company-1-appMessage', create(2));
      socket.serverEmit('company-1-appMessage', create(3));
      socket.serverEmit('company-1-appMessage', create(4));
    });
    expect(server.find('POST', '/tickets/7/read')).toHaveLength(0);
    await waitFor(() => expect(server.find('POST', '/tickets/7/read')).toHaveLength(1));
    // Own messages and other tickets' messages do not count.
    act(() => {
      socket.serverEmit('company-1-appMessage', create(5, { fromMe: true }));
      socket.serverEmit('company-1-appMessage', create(6, { ticketId: 8 }, ticketFixture(8)));
    });
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.find('POST', '/tickets/7/read')).toHaveLength(1);
    expect(server.find('POST', '/tickets/8/read')).toHaveLength(0);
  });

  it('waits for the focus when the page is not being looked at', async () => {
    const server = viewServer();
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    focused = false;
    act(() => lastSocket().serverEmit('company-1-appMessage', create(2)));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.find('POST', '/tickets/7/read')).toHaveLength(0);
    focused = true;
    fireEvent.focus(window);
    await waitFor(() => expect(server.find('POST', '/tickets/7/read')).toHaveLength(1));
    // Read: a later focus has nothing to mark.
    fireEvent.focus(window);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.find('POST', '/tickets/7/read')).toHaveLength(1);
  });

  it('marks read on focus when the ticket has unread messages', async () => {
    // Opening the ticket read it (first messages page): a focus alone calls nothing.
    const server = viewServer({}, ticketFixture(7, { unreadMessages: 3 }));
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    fireEvent.focus(window);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.find('POST', '/tickets/7/read')).toHaveLength(0);
    // Unread again (a message read elsewhere in the meantime, say), then the focus comes back.
    act(() => lastSocket().serverEmit('company-1-ticket', { action: 'update', seq: 200, ticket: ticketFixture(7, { unreadMessages: 2 }) }));
    fireEvent.focus(window);
    await waitFor(() => expect(server.find('POST', '/tickets/7/read')).toHaveLength(1));
  });
});
