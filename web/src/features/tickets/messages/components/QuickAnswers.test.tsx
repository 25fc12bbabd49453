/** Quick answers in the ticket input: "/" opens the matching list, arrows + Enter pick, Escape closes. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../../lib/i18n';
import { renderApp } from '../../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../../test/server';
import { imageResponse, stubObjectUrls } from '../../../../test/object-urls';
import { inboxAuth, messageFixture, ticketFixture } from '../../../../test/inbox-fixtures';
import { preview } from '../api/quick-answers';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../../test/socket')).ioMock }));

const long = 'x'.repeat(120);
const answers = [
  { id: 1, shortcode: 'oi', message: 'Olá! Como posso ajudar?', isMedia: false, mediaPath: null, mediaName: null },
  { id: 2, shortcode: 'obrigado', message: long, isMedia: false, mediaPath: null, mediaName: null },
  { id: 3, shortcode: 'catalogo', message: 'Nosso catálogo', isMedia: true, mediaPath: '/quick-messages/3/media', mediaName: 'catalogo.png' },
];

function ticketServer(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  const ticket = ticketFixture(7);
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth(),
    'GET /tags/list': () => [],
    'GET /users/list': () => [],
    'GET /whatsapp': () => [],
    'GET /tickets': () => ({ tickets: [ticket], hasMore: false, count: 1, nextCursor: null }),
    'GET /tickets/u/:uuid': () => ticket,
    'GET /messages/:uuid': () => ({ messages: [], hasMore: false, nextCursor: null }),
    'GET /quick-messages/list': () => answers,
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('quick answers', () => {
  it('cuts previews at 90 characters', () => {
    expect(preview(long)).toBe(`${'x'.repeat(90)}...`);
    expect(preview('curta')).toBe('curta');
  });

  it('"/" lists the matching shortcodes; arrows and Enter put the message in the input to edit', async () => {
    ticketServer();
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const input = await screen.findByTestId('message-input');
    await user.type(input, '/o');
    const list = await screen.findByTestId('quick-answers');
    expect(within(list).getByTestId('quick-answer-1')).toHaveTextContent('/oi');
    expect(within(list).getByTestId('quick-answer-2')).toHaveTextContent(`${'x'.repeat(90)}...`);
    expect(within(list).getByTestId('quick-answer-3')).toBeInTheDocument();
    await user.type(input, 'b');
    await waitFor(() => expect(screen.queryByTestId('quick-answer-1')).not.toBeInTheDocument());
    expect(screen.getByTestId('quick-answer-2')).toHaveAttribute('aria-selected', 'true');
    await user.clear(input);
    await user.type(input, '/');
    await screen.findByTestId('quick-answer-1');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowUp}');
    expect(screen.getByTestId('quick-answer-2')).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowUp}{Enter}');
    expect(input).toHaveValue('Olá! Como posso ajudar?');
    expect(screen.queryByTestId('quick-answers')).not.toBeInTheDocument();
    await user.type(input, ' Tudo bem?');
    expect(input).toHaveValue('Olá! Como posso ajudar? Tudo bem?');
  });

  it('asks for the messages filled for the open ticket and inserts them as the server filled them', async () => {
    const server = ticketServer({
      'GET /quick-messages/list': (request) =>
        request.query.get('ticketId') === '7'
          ? [{ id: 4, shortcode: 'ola', message: 'Olá Maria, protocolo 7', isMedia: false, mediaPath: null, mediaName: null }]
          : [{ id: 4, shortcode: 'ola', message: 'Olá {{firstName}}, protocolo {{protocol}}', isMedia: false, mediaPath: null, mediaName: null }],
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const input = await screen.findByTestId('message-input');
    await user.type(input, '/ola');
    await user.click(await screen.findByTestId('quick-answer-4'));
    expect(input).toHaveValue('Olá Maria, protocolo 7');
    expect(server.find('GET', '/quick-messages/list').every((r) => r.query.get('ticketId') === '7')).toBe(true);
  });

  it('Escape closes the list and Enter then sends the text as typed', async () => {
    const server = ticketServer({ 'POST /messages/:ticketId': () => messageFixture(9, { fromMe: true, body: '/oi' }) });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const input = await screen.findByTestId('message-input');
    await user.type(input, '/oi');
    await screen.findByTestId('quick-answer-1');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('quick-answers')).not.toBeInTheDocument();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    expect((server.find('POST', '/messages/7')[0].body as { body: string }).body).toContain('/oi');
  });

  it('one with a file opens the media preview with the file and the message as caption', async () => {
    stubObjectUrls();
    const server = ticketServer({
      'GET /quick-messages/3/media': () => imageResponse(),
      'POST /messages/:ticketId': () => [messageFixture(10, { fromMe: true, mediaType: 'image', body: 'Nosso catálogo' })],
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('message-input'), '/cat');
    await user.click(await screen.findByTestId('quick-answer-3'));
    const dialog = await screen.findByTestId('media-preview');
    expect(within(dialog).getByText('catalogo.png')).toBeInTheDocument();
    expect(within(dialog).getByTestId('media-caption-0')).toHaveValue('Nosso catálogo');
    expect(server.find('GET', '/quick-messages/3/media')[0].headers.Authorization).toBe('Bearer stored');
    await user.click(within(dialog).getByTestId('media-send'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    const form = server.find('POST', '/messages/7')[0].body as FormData;
    expect((form.get('medias') as File).name).toBe('catalogo.png');
    expect(form.get('body')).toBe('Nosso catálogo');
  });
});
