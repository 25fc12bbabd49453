import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_INBOX_PERMISSIONS, adminAuth, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { connectionFixture } from '../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function server(routes: Record<string, MockHandler> = {}, auth: unknown = adminAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /whatsapp': () => [connectionFixture(1), connectionFixture(2, { status: 'DISCONNECTED' })],
    'GET /whatsapp/providers': () => ({ providers: ['beta', 'sandbox'], default: 'sandbox' }),
    'GET /settings': () => [],
    ...routes,
  });
}

/** One message of `GET /whatsapp/{id}/health` (core/src/inbox/delivery.rs `UndeliveredMessage`). */
function undelivered(id: number, overrides: Record<string, unknown> = {}) {
  return { id, ticketId: 40 + id, contactName: `Cliente ${id}`, body: `Olá, sua encomenda ${id} saiu para entrega`, createdAt: '2026-03-04T15:07:00', ...overrides };
}

const LONG = `${'Uma mensagem bem comprida '.repeat(6)}fim`;

beforeEach(async () => {
  await setLanguage('pt');
});

describe('delivery health of a connection', () => {
  it('fetches /whatsapp/{id}/health and shows the count and the newest messages', async () => {
    const api = server({
      'GET /whatsapp/:id/health': () => ({
        undelivered: 23,
        messages: [undelivered(1), undelivered(2, { body: LONG }), undelivered(3, { body: '', contactName: '' })],
      }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const button = await screen.findByTestId('connections-health-1');
    expect(button).toHaveAccessibleName('Saúde das entregas');
    await user.click(button);
    const dialog = await screen.findByTestId('delivery-health-dialog');
    expect(dialog).toHaveTextContent('Saúde das entregas: Conexão 1');
    expect(await within(dialog).findByTestId('delivery-health-count')).toHaveTextContent('23 mensagens não entregues nas últimas 24 horas');
    expect(api.find('GET', '/whatsapp/1/health')).toHaveLength(1);
    // The count is the last day's; the list holds the newest of them.
    expect(within(dialog).getByTestId('delivery-health-newest')).toHaveTextContent('Mostrando as 3 mais recentes.');
    const first = within(dialog).getByTestId('delivery-health-message-1');
    expect(first).toHaveTextContent('Cliente 1');
    expect(first).toHaveTextContent('Olá, sua encomenda 1 saiu para entrega');
    expect(within(dialog).getByTestId('delivery-health-time-1')).toHaveTextContent('04/03/26 15:07');
    // A long text is cut; a message without text or a contact without a name says so.
    const second = within(dialog).getByTestId('delivery-health-message-2');
    expect(second).toHaveTextContent('…');
    expect(second).not.toHaveTextContent('fim');
    expect(within(dialog).getByTestId('delivery-health-message-3')).toHaveTextContent('Contato sem nome');
    expect(within(dialog).getByTestId('delivery-health-message-3')).toHaveTextContent('Mensagem sem texto');
    expect(within(dialog).queryByTestId('delivery-health-empty')).not.toBeInTheDocument();

    await user.click(within(dialog).getByTestId('delivery-health-close'));
    await waitFor(() => expect(screen.queryByTestId('delivery-health-dialog')).not.toBeInTheDocument());
  });

  it('says one message in the singular and lists it without the "newest" line when all are shown', async () => {
    server({ 'GET /whatsapp/:id/health': () => ({ undelivered: 1, messages: [undelivered(5)] }) });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-health-2'));
    expect(await screen.findByTestId('delivery-health-count')).toHaveTextContent('1 mensagem não entregue nas últimas 24 horas');
    expect(screen.getByTestId('delivery-health-message-5')).toBeInTheDocument();
    expect(screen.queryByTestId('delivery-health-newest')).not.toBeInTheDocument();
  });

  it('shows the empty state when every message was delivered', async () => {
    const api = server({ 'GET /whatsapp/:id/health': () => ({ undelivered: 0, messages: [] }) });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-health-2'));
    expect(await screen.findByTestId('delivery-health-empty')).toHaveTextContent('Todas as mensagens foram entregues');
    expect(api.find('GET', '/whatsapp/2/health')).toHaveLength(1);
    expect(screen.queryByTestId('delivery-health-count')).not.toBeInTheDocument();
    expect(screen.queryByTestId('delivery-health-list')).not.toBeInTheDocument();
  });

  it('shows loading, then the translated error', async () => {
    // The answer's body arrives when the test lets it: meanwhile the dialog is loading.
    let release = () => {};
    server({
      'GET /whatsapp/:id/health': () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              release = () => {
                controller.enqueue(new TextEncoder().encode(JSON.stringify({ error: 'ERR_NO_WAPP_FOUND', message: 'no' })));
                controller.close();
              };
            },
          }),
          { status: 404 },
        ),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-health-1'));
    expect(await screen.findByTestId('delivery-health-loading')).toBeInTheDocument();
    release();
    expect(await screen.findByTestId('delivery-health-error')).toHaveTextContent('Nenhuma conexão encontrada.');
    expect(screen.queryByTestId('delivery-health-loading')).not.toBeInTheDocument();
  });

  it('opens the ticket of a listed message by its uuid', async () => {
    const api = server({
      'GET /whatsapp/:id/health': () => ({ undelivered: 1, messages: [undelivered(2)] }),
      'GET /tickets/:id': () => ({ id: 42, uuid: 'uuid-42', status: 'open' }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-health-1'));
    await user.click(await screen.findByTestId('delivery-health-message-2'));
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/uuid-42'));
    expect(api.find('GET', '/tickets/42')).toHaveLength(1);
    expect(screen.queryByTestId('delivery-health-dialog')).not.toBeInTheDocument();
  });

  it('keeps the dialog open and says why when the ticket cannot be opened', async () => {
    server({
      'GET /whatsapp/:id/health': () => ({ undelivered: 1, messages: [undelivered(2)] }),
      'GET /tickets/:id': () => reply(404, { error: 'ERR_NO_TICKET_FOUND', message: 'no' }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-health-1'));
    await user.click(await screen.findByTestId('delivery-health-message-2'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('Nenhum ticket encontrado.');
    expect(window.location.pathname).toBe('/connections');
    expect(screen.getByTestId('delivery-health-dialog')).toBeInTheDocument();
  });

  it('is offered only to users who manage connections', async () => {
    server({}, authFixture({ permissions: ADMIN_INBOX_PERMISSIONS.filter((p) => p !== 'connections-page:editOrDeleteConnection') }));
    renderApp('/connections');
    await screen.findByTestId('connections-row-1');
    expect(screen.queryByTestId('connections-health-1')).not.toBeInTheDocument();
  });
});
