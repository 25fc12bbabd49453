import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../../lib/i18n';
import { renderApp } from '../../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../../test/server';
import { imageResponse, stubObjectUrls } from '../../../../test/object-urls';
import { stubScrollPane } from '../../../../test/layout';
import { lastSocket } from '../../../../test/socket';
import { inboxAuth, messageFixture, ticketFixture } from '../../../../test/inbox-fixtures';
import { canDeleteMessage, canEditMessage, EDIT_WINDOW_MS, type Message } from '../types';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../../test/socket')).ioMock }));

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

function ticketServer(routes: Record<string, MockHandler> = {}, ticket = ticketFixture(7)) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth(),
    'GET /tags/list': () => [],
    'GET /users/list': () => [],
    'GET /whatsapp': () => [],
    'GET /tickets': () => ({ tickets: [ticket], hasMore: false, count: 1, nextCursor: null }),
    'GET /tickets/u/:uuid': () => ticket,
    ...routes,
  });
}

/** Messages 2 and 3, then, asked with the cursor `older`, message 1 ("bem antiga") and no more. */
function twoPageServer() {
  return ticketServer({
    'GET /messages/:uuid': ({ query }) =>
      query.get('cursor') === 'older'
        ? { messages: [messageFixture(1, { body: 'bem antiga' })], hasMore: false, nextCursor: null }
        : { messages: [messageFixture(2), messageFixture(3)], hasMore: true, nextCursor: 'older' },
  });
}

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  await setLanguage('pt');
});
afterEach(() => urls.restore());

describe('ticket view messages', () => {
  it('shows the header, date separators, acks, deleted, call log, private notes, quotes and reactions', async () => {
    ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [
          messageFixture(1, { createdAt: '2025-02-01T12:00:00Z', body: 'Antiga' }),
          messageFixture(2, { fromMe: true, ack: 5, userId: 1 }),
          messageFixture(3, { isDeleted: true }),
          messageFixture(4, { fromMe: true, isDeleted: true, userId: 1 }),
          messageFixture(5, { mediaType: 'call_log', body: '' }),
          messageFixture(6, { fromMe: true, isPrivate: true, body: 'nota interna', userId: 1 }),
          messageFixture(7, { quotedMsg: { id: 1, body: 'Antiga', fromMe: false, mediaType: 'chat', isDeleted: false }, reactions: [{ emoji: '👍', fromMe: true }] }),
        ],
        hasMore: false,
        nextCursor: null,
      }),
    });
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('ticket-header-name')).toHaveTextContent('Contato 7');
    expect(screen.getByTestId('ticket-header-name')).toHaveTextContent('#7');
    expect(await screen.findByTestId('message-1')).toHaveTextContent('Antiga');
    expect(screen.getAllByTestId('messages-day').map((d) => d.textContent)).toHaveLength(2);
    expect(screen.getAllByTestId('messages-day')[0]).toHaveTextContent('01/02/2025');
    expect(within(screen.getByTestId('message-2')).getByTestId('message-ack')).toHaveAttribute('data-ack', '5');
    expect(screen.getByTestId('message-deleted-3')).toHaveTextContent('Mensagem apagada pelo contato');
    expect(screen.getByTestId('message-deleted-4')).toHaveTextContent('Essa mensagem foi apagada');
    expect(screen.getByTestId('message-5')).toHaveAttribute('data-kind', 'call_log');
    expect(screen.getByTestId('message-6')).toHaveAttribute('data-private', 'true');
    expect(screen.getByTestId('message-6')).toHaveTextContent('Nota privada');
    expect(screen.getByTestId('message-quoted-7')).toHaveTextContent('Antiga');
    expect(screen.getByTestId('message-reactions-7')).toHaveTextContent('👍');
  });

  it('shows a gap notice as a line with both times, in the reader\'s language, not as a message', async () => {
    // Local times, as the reader's clock shows them: 29/11/2026 10:01 to 10:09, and to the next day.
    const at = (day: number, hour: number, minute: number) => new Date(2026, 10, day, hour, minute).toISOString();
    ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [
          messageFixture(1, { body: 'Antes' }),
          messageFixture(2, { mediaType: 'gap', body: `${at(29, 10, 1)}/${at(29, 10, 9)}`, createdAt: at(29, 10, 1) }),
          messageFixture(3, { mediaType: 'gap', body: `${at(29, 23, 50)}/${at(30, 0, 20)}`, createdAt: at(29, 23, 50) }),
          messageFixture(4, { mediaType: 'gap', body: 'not an interval' }),
        ],
        hasMore: false,
        nextCursor: null,
      }),
    });
    renderApp('/tickets/uuid-7');
    const gap = await screen.findByTestId('message-2');
    expect(gap).toHaveAttribute('data-kind', 'gap');
    expect(screen.getByTestId('message-gap-2')).toHaveTextContent(
      'A conexão ficou fora do ar de 29/11/2026 10:01 a 10:09: mensagens deste período podem estar faltando',
    );
    expect(screen.getByTestId('message-gap-3')).toHaveTextContent('A conexão ficou fora do ar de 29/11/2026 23:50 a 30/11/2026 00:20');
    expect(screen.getByTestId('message-gap-4')).toHaveTextContent('A conexão ficou fora do ar: mensagens podem estar faltando');
    // A line, not a bubble: no options menu, no raw interval.
    expect(within(gap).queryByTestId('message-menu-2')).not.toBeInTheDocument();
    expect(gap).not.toHaveTextContent('2026-');
    expect(screen.getByTestId('message-menu-1')).toBeInTheDocument();

    await act(() => setLanguage('en'));
    try {
      await waitFor(() =>
        expect(screen.getByTestId('message-gap-2')).toHaveTextContent('The connection was down from 29/11/2026 10:01 to 10:09: messages from this period may be missing'),
      );
    } finally {
      await act(() => setLanguage('pt'));
    }
  });

  it('loads the older page with nextCursor when scrolled within 50 px of the top', async () => {
    const server = twoPageServer();
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-3');
    const list = screen.getByTestId('messages-list');
    list.scrollTop = 200;
    fireEvent.scroll(list);
    list.scrollTop = 20;
    fireEvent.scroll(list);
    expect(await screen.findByTestId('message-1')).toHaveTextContent('bem antiga');
    expect(server.find('GET', '/messages/uuid-7').map((r) => r.query.get('cursor'))).toEqual([null, 'older']);
    const ids = screen.getAllByTestId(/^message-\d+$/).map((m) => m.getAttribute('data-testid'));
    expect(ids).toEqual(['message-1', 'message-2', 'message-3']);
  });

  it('sends text with Enter (signed by the server), refuses empty text and sends private notes unsigned', async () => {
    let next = 100;
    const server = ticketServer({
      'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
      'POST /messages/:ticketId': ({ body }) => messageFixture(next++, { fromMe: true, userId: 1, ...(body as object) }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const input = await screen.findByTestId('message-input');
    await user.type(input, '   {Enter}');
    expect(server.find('POST', '/messages/7')).toHaveLength(0);
    await user.clear(input);
    await user.type(input, 'Olá{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    // The text as typed: the server adds the one signature.
    expect(server.find('POST', '/messages/7')[0].body).toEqual({ body: 'Olá', signMessage: true });
    expect(await screen.findByTestId('message-100')).toBeInTheDocument();
    await waitFor(() => expect(input).toHaveValue(''));

    await user.click(screen.getByTestId('input-private'));
    await user.type(input, 'só para a equipe{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(2));
    expect(server.find('POST', '/messages/7')[1].body).toEqual({ body: 'só para a equipe', isPrivate: true });

    // Without the signature.
    await user.click(screen.getByTestId('input-private'));
    await user.click(screen.getByTestId('input-sign'));
    await user.type(input, 'sem assinatura{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(3));
    expect(server.find('POST', '/messages/7')[2].body).toEqual({ body: 'sem assinatura', signMessage: false });
    expect(localStorage.getItem('signOption')).toBe('false');
  });

  it('replies quoting a message', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': () => ({ messages: [messageFixture(1)], hasMore: false, nextCursor: null }),
      'POST /messages/:ticketId': ({ body }) => messageFixture(200, { fromMe: true, userId: 1, ...(body as object) }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('message-menu-1'));
    await user.click(await screen.findByTestId('message-action-reply'));
    expect(screen.getByTestId('input-replying')).toHaveTextContent('Mensagem 1');
    await user.click(screen.getByTestId('input-sign'));
    await user.type(screen.getByTestId('message-input'), 'resposta{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    expect(server.find('POST', '/messages/7')[0].body).toEqual({ body: 'resposta', signMessage: false, quotedMsg: { id: 1 } });
  });

  it('edits own messages only within 15 minutes and deletes own messages only', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [
          messageFixture(1, { fromMe: true, userId: 1, createdAt: minutesAgo(5), body: 'recente' }),
          messageFixture(2, { fromMe: true, userId: 1, createdAt: minutesAgo(20), body: 'antiga' }),
          messageFixture(3, { fromMe: false, body: 'do contato' }),
        ],
        hasMore: false,
        nextCursor: null,
      }),
      'POST /messages/edit/:id': () => ({}),
      'DELETE /messages/:id': () => undefined,
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('message-menu-2'));
    expect(screen.queryByTestId('message-action-edit')).not.toBeInTheDocument();
    expect(screen.getByTestId('message-action-delete')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('message-action-delete')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('message-menu-3'));
    expect(screen.queryByTestId('message-action-edit')).not.toBeInTheDocument();
    expect(screen.queryByTestId('message-action-delete')).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('message-action-reply')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('message-menu-1'));
    await user.click(await screen.findByTestId('message-action-edit'));
    const input = screen.getByTestId('message-input');
    expect(input).toHaveValue('recente');
    await user.clear(input);
    await user.type(input, 'corrigida{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/edit/1')).toHaveLength(1));
    expect(server.find('POST', '/messages/edit/1')[0].body).toEqual({ body: 'corrigida' });
    expect(await screen.findByTestId('message-body-1')).toHaveTextContent('corrigida');

    await user.click(screen.getByTestId('message-menu-2'));
    await user.click(await screen.findByTestId('message-action-delete'));
    await user.click(await screen.findByTestId('message-delete-confirm-confirm'));
    await waitFor(() => expect(server.find('DELETE', '/messages/2')).toHaveLength(1));
    expect(await screen.findByTestId('message-deleted-2')).toHaveTextContent('Essa mensagem foi apagada');
  });

  it('fetches media with the token as a blob', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [messageFixture(1, { mediaType: 'image', mediaUrl: '/messages/1/media', mediaName: 'foto.png', body: '' })],
        hasMore: false,
        nextCursor: null,
      }),
      'GET /messages/1/media': () => imageResponse(),
    });
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('message-image-1')).toHaveAttribute('src', 'blob:http://localhost/1');
    const request = server.find('GET', '/messages/1/media')[0];
    expect(request.headers.Authorization).toBe('Bearer stored');
  });

  it('sends attachments with one caption per file', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
      'POST /messages/:ticketId': () => [messageFixture(300, { fromMe: true, userId: 1, mediaType: 'application', body: 'contrato' })],
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const file = new File(['%PDF'], 'contrato.pdf', { type: 'application/pdf' });
    await user.upload(await screen.findByTestId('input-file'), file);
    const dialog = await screen.findByTestId('media-preview');
    await user.type(within(dialog).getByTestId('media-caption-0'), 'contrato');
    await user.click(within(dialog).getByTestId('media-send'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    const body = server.find('POST', '/messages/7')[0].body as FormData;
    expect(body).toBeInstanceOf(FormData);
    expect((body.get('medias') as File).name).toBe('contrato.pdf');
    expect(body.get('body')).toBe('contrato');
    // Signed by the server, once, as the text is.
    expect(body.get('signMessage')).toBe('true');
  });

  it('reacts, forwards (with the sign choice) and sends a contact card', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': () => ({ messages: [messageFixture(1)], hasMore: false, nextCursor: null }),
      'POST /messages/:id/react': () => ({}),
      'POST /message/forward': () => ({}),
      'GET /contacts/list': () => [{ id: 60, name: 'Carlos', number: '5511977776666' }],
      'POST /messages/:ticketId': ({ body }) => messageFixture(400, { fromMe: true, userId: 1, mediaType: 'contactMessage', body: (body as { body: string }).body }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('message-menu-1'));
    await user.click(await screen.findByTestId('message-action-react'));
    await user.click(await screen.findByTestId('message-react-👍'));
    await waitFor(() => expect(server.find('POST', '/messages/1/react')).toHaveLength(1));
    expect(server.find('POST', '/messages/1/react')[0].body).toEqual({ emoji: '👍' });

    await user.click(screen.getByTestId('message-menu-1'));
    await user.click(await screen.findByTestId('message-action-forward'));
    const forward = await screen.findByTestId('forward-dialog');
    await user.type(within(forward).getByTestId('forward-dialog-contact'), 'Car');
    await user.click(await screen.findByText('Carlos - 5511977776666', {}, { timeout: 3000 }));
    await user.click(within(forward).getByRole('switch'));
    await user.click(within(forward).getByTestId('forward-dialog-submit'));
    await waitFor(() => expect(server.find('POST', '/message/forward')).toHaveLength(1));
    expect(server.find('POST', '/message/forward')[0].body).toEqual({ messageId: 1, contactId: 60, signMessage: false });
    expect(await screen.findByText('Mensagem encaminhada')).toBeInTheDocument();

    await user.click(screen.getByTestId('input-send-contact'));
    const card = await screen.findByTestId('send-contact-dialog');
    await user.type(within(card).getByTestId('send-contact-dialog-contact'), 'Car');
    await user.click(await screen.findByText('Carlos - 5511977776666', {}, { timeout: 3000 }));
    await user.click(within(card).getByTestId('send-contact-dialog-submit'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    expect(server.find('POST', '/messages/7')[0].body).toEqual({ body: 'Carlos', vCard: { name: 'Carlos', number: '5511977776666' } });
    expect(await screen.findByTestId('message-400')).toHaveTextContent('Carlos');
  });

  it('refuses to write on a pending ticket', async () => {
    ticketServer({ 'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }) }, ticketFixture(7, { status: 'pending', userId: null, user: null }));
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('input-disabled')).toBeInTheDocument();
    expect(screen.getByTestId('ticket-header-accept')).toBeInTheDocument();
  });
});

describe('an attachment that could not be downloaded', () => {
  const failed = (overrides: Record<string, unknown> = {}) =>
    messageFixture(1, { mediaType: 'image', mediaUrl: null, mediaName: 'foto.png', body: 'legenda da foto', mediaError: 'ERR_WAPP_DOWNLOAD_MEDIA', ...overrides });
  const page = () => ({ messages: [failed()], hasMore: false, nextCursor: null });
  const downloadError = 'Não foi possível baixar a mídia. Verifique a página de conexões.';

  it('shows the error and the caption instead of the media, and shows the media once the download is tried again', async () => {
    const server = ticketServer({
      'GET /messages/:uuid': page,
      'POST /messages/:id/media/retry': () => failed({ mediaUrl: '/messages/1/media', mediaError: null }),
      'GET /messages/1/media': () => imageResponse(),
    });
    // The retry answers when the test lets it, so the progress can be seen.
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const route = server.fetch.getMockImplementation();
    server.fetch.mockImplementation(async (input, init) => {
      if (String(input).endsWith('/media/retry')) await answered;
      return route!(input, init);
    });
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('message-media-error-text-1')).toHaveTextContent(downloadError);
    expect(screen.getByTestId('message-body-1')).toHaveTextContent('legenda da foto');
    expect(screen.queryByTestId('message-image-1')).not.toBeInTheDocument();
    expect(screen.queryByTestId('message-media-loading-1')).not.toBeInTheDocument();
    expect(server.find('GET', '/messages/1/media')).toHaveLength(0);

    const retry = screen.getByTestId('message-media-retry-1');
    expect(retry).toHaveTextContent('Tentar novamente');
    await userEvent.setup().click(retry);
    await waitFor(() => expect(retry).toBeDisabled());
    answer();

    expect(await screen.findByTestId('message-image-1')).toHaveAttribute('src', 'blob:http://localhost/1');
    const [request] = server.find('POST', '/messages/1/media/retry');
    expect(request.headers.Authorization).toBe('Bearer stored');
    expect(request.body).toBeUndefined();
    expect(server.find('POST', '/messages/1/media/retry')).toHaveLength(1);
    expect(screen.queryByTestId('message-media-error-1')).not.toBeInTheDocument();
    expect(screen.getByTestId('message-body-1')).toHaveTextContent('legenda da foto');
  });

  it('shows a failed retry as a translated error and keeps the button', async () => {
    let answer = reply(400, { error: 'ERR_WAPP_DOWNLOAD_MEDIA' });
    const server = ticketServer({
      'GET /messages/:uuid': page,
      'POST /messages/:id/media/retry': () => answer,
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const retry = await screen.findByTestId('message-media-retry-1');
    await user.click(retry);
    expect(await screen.findByTestId('toast-error')).toHaveTextContent(downloadError);
    await waitFor(() => expect(retry).toBeEnabled());
    expect(screen.getByTestId('message-media-error-text-1')).toHaveTextContent(downloadError);

    answer = reply(409, { error: 'ERR_WAPP_NOT_INITIALIZED', message: 'session not connected' });
    await user.click(retry);
    expect(await screen.findByText('Esta conexão não foi inicializada. Verifique a página de conexões.')).toBeInTheDocument();
    expect(server.find('POST', '/messages/1/media/retry')).toHaveLength(2);
    await waitFor(() => expect(retry).toBeEnabled());
    expect(screen.getByTestId('message-media-error-1')).toBeInTheDocument();
  });

  it('speaks the language of the user', async () => {
    ticketServer({ 'GET /messages/:uuid': page });
    await setLanguage('en');
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('message-media-error-text-1')).toHaveTextContent('Could not download the media. Check the connections page.');
    expect(screen.getByTestId('message-media-retry-1')).toHaveTextContent('Try again');
  });

  it('takes the realtime update of the message', async () => {
    ticketServer({ 'GET /messages/:uuid': page, 'GET /messages/1/media': () => imageResponse() });
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-media-retry-1');
    act(() =>
      lastSocket().serverEmit('company-1-appMessage', { action: 'update', seq: 1, ticket: ticketFixture(7), message: failed({ mediaUrl: '/messages/1/media', mediaError: null }) }),
    );
    expect(await screen.findByTestId('message-image-1')).toBeInTheDocument();
    expect(screen.queryByTestId('message-media-error-1')).not.toBeInTheDocument();
  });
});

describe('the conversation pane', () => {
  const arrives = (id: number, overrides: Record<string, unknown> = {}) =>
    act(() => lastSocket().serverEmit('company-1-appMessage', { action: 'create', seq: id, ticket: ticketFixture(7), message: messageFixture(id, overrides) }));

  it('opens at the newest message, follows new ones at the bottom, and marks them without moving a reader who scrolled up', async () => {
    // 2000 px of messages in a 500 px pane: the bottom is at 1500.
    const restore = stubScrollPane('messages-list', 2000, 500);
    try {
      ticketServer({ 'GET /messages/:uuid': () => ({ messages: [messageFixture(1), messageFixture(2), messageFixture(3)], hasMore: false, nextCursor: null }) });
      renderApp('/tickets/uuid-7');
      await screen.findByTestId('message-3', {}, { timeout: 20000 });
      const list = screen.getByTestId('messages-list');
      expect(list.scrollTop).toBe(1500);
      expect(screen.queryByTestId('messages-jump-latest')).not.toBeInTheDocument();

      // The reader scrolls up: the jump button shows; what arrives is counted, the view stays.
      list.scrollTop = 400;
      fireEvent.scroll(list);
      expect(await screen.findByTestId('messages-jump-latest')).toBeInTheDocument();
      arrives(4);
      await screen.findByTestId('message-4');
      arrives(5);
      await screen.findByTestId('message-5');
      const marker = await screen.findByTestId('messages-new-marker');
      expect(marker).toHaveAttribute('data-count', '2');
      expect(marker).toHaveTextContent('2 novas mensagens');
      expect(list.scrollTop).toBe(400);

      // The marker brings the newest message; at the bottom, the next one is followed.
      await userEvent.setup().click(marker);
      expect(list.scrollTop).toBe(1500);
      fireEvent.scroll(list);
      await waitFor(() => expect(screen.queryByTestId('messages-new-marker')).not.toBeInTheDocument());
      expect(screen.queryByTestId('messages-jump-latest')).not.toBeInTheDocument();
      list.scrollTop = 1450;
      fireEvent.scroll(list);
      arrives(6);
      await screen.findByTestId('message-6');
      expect(list.scrollTop).toBe(1500);
      expect(screen.queryByTestId('messages-new-marker')).not.toBeInTheDocument();

      // The reader's own message is shown even when scrolled up.
      list.scrollTop = 200;
      fireEvent.scroll(list);
      arrives(7, { fromMe: true, userId: 1 });
      await screen.findByTestId('message-7');
      expect(list.scrollTop).toBe(1500);
      expect(screen.queryByTestId('messages-new-marker')).not.toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it('loads the older page at once when the messages do not fill the pane', async () => {
    // 300 px of messages in a 500 px pane: nothing to scroll, so no scroll would ask.
    const restore = stubScrollPane('messages-list', 300, 500);
    try {
      const server = twoPageServer();
      renderApp('/tickets/uuid-7');
      expect(await screen.findByTestId('message-1')).toHaveTextContent('bem antiga');
      expect(server.find('GET', '/messages/uuid-7').map((r) => r.query.get('cursor'))).toEqual([null, 'older']);
    } finally {
      restore();
    }
  });
});

describe('message rules', () => {
  const own = { fromMe: true, userId: 1, isDeleted: false, mediaType: 'chat' } as Message;
  it('edit window is 15 minutes', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(canEditMessage({ ...own, createdAt: new Date(now - EDIT_WINDOW_MS + 1000).toISOString() }, 1, now)).toBe(true);
    expect(canEditMessage({ ...own, createdAt: new Date(now - EDIT_WINDOW_MS - 1000).toISOString() }, 1, now)).toBe(false);
    expect(canEditMessage({ ...own, userId: 2, createdAt: new Date(now).toISOString() }, 1, now)).toBe(false);
  });
  it('only own messages can be deleted', () => {
    expect(canDeleteMessage(own, 1)).toBe(true);
    expect(canDeleteMessage({ ...own, fromMe: false }, 1)).toBe(false);
    expect(canDeleteMessage({ ...own, userId: 2 }, 1)).toBe(false);
  });
});
