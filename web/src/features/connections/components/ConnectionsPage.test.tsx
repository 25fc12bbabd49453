import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { ADMIN_INBOX_PERMISSIONS, adminAuth, connectionFixture } from '../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function server(connections: () => unknown[], routes: Record<string, MockHandler> = {}, auth: unknown = adminAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /queue': () => [{ id: 4, name: 'Suporte', color: '#f00' }],
    'GET /whatsapp': () => connections(),
    ...routes,
  });
}

const QR1 = 'data:image/png;base64,AAAA';
const QR2 = 'data:image/png;base64,BBBB';

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/connections', () => {
  it('shows each status with the buttons of the status table, the date and the default flag', async () => {
    server(() => [
      connectionFixture(1, { status: 'qrcode', qrcode: QR1, isDefault: true }),
      connectionFixture(2, { status: 'DISCONNECTED' }),
      connectionFixture(3, { status: 'CONNECTED' }),
      connectionFixture(4, { status: 'PAIRING' }),
      connectionFixture(5, { status: 'TIMEOUT' }),
      connectionFixture(6, { status: 'OPENING' }),
    ]);
    renderApp('/connections');
    const first = await screen.findByTestId('connections-row-1');
    expect(within(first).getByTestId('connections-qr-1')).toBeInTheDocument();
    expect(first).toHaveTextContent('04/03/26 15:07');
    expect(within(first).getByTestId('connections-default-1')).toBeInTheDocument();
    expect(screen.getByTestId('connections-retry-2')).toHaveTextContent('Tentar novamente');
    expect(screen.getByTestId('connections-newqr-2')).toHaveTextContent('Novo QR Code');
    for (const id of [3, 4, 5]) expect(screen.getByTestId(`connections-disconnect-${id}`)).toHaveTextContent('Desconectar');
    expect(screen.getByTestId('connections-connecting-6')).toBeDisabled();
    expect(screen.getByTestId('connections-status-3')).toHaveTextContent('Conectado');
    expect(screen.queryByTestId('connections-default-2')).not.toBeInTheDocument();
  });

  it('runs the session actions: retry, new QR, disconnect after confirmation, restart all', async () => {
    const api = server(() => [connectionFixture(2, { status: 'DISCONNECTED' }), connectionFixture(3)], {
      'POST /whatsappsession/:id': () => undefined,
      'PUT /whatsappsession/:id': () => undefined,
      'DELETE /whatsappsession/:id': () => undefined,
      'POST /whatsapp-restart/': () => undefined,
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-retry-2'));
    await waitFor(() => expect(api.find('POST', '/whatsappsession/2')).toHaveLength(1));
    await user.click(screen.getByTestId('connections-newqr-2'));
    await waitFor(() => expect(api.find('PUT', '/whatsappsession/2')).toHaveLength(1));
    await user.click(screen.getByTestId('connections-disconnect-3'));
    expect(await screen.findByText('Desconectar Conexão 3?')).toBeInTheDocument();
    expect(api.find('DELETE', '/whatsappsession/3')).toHaveLength(0);
    await user.click(screen.getByTestId('connections-disconnect-dialog-confirm'));
    await waitFor(() => expect(api.find('DELETE', '/whatsappsession/3')).toHaveLength(1));
    await user.click(screen.getByTestId('connections-restart-all'));
    await waitFor(() => expect(api.find('POST', '/whatsapp-restart/')).toHaveLength(1));
  });

  it('shows the QR code, replaces it live from whatsappSession and closes when CONNECTED', async () => {
    server(() => [connectionFixture(1, { status: 'qrcode', qrcode: QR1 })]);
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-qr-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    expect(within(dialog).getByTestId('qrcode-image')).toHaveAttribute('src', QR1);

    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 7, session: connectionFixture(1, { status: 'qrcode', qrcode: QR2 }) }));
    await waitFor(() => expect(within(dialog).getByTestId('qrcode-image')).toHaveAttribute('src', QR2));
    // another company's session is not heard
    act(() => socket.serverEmit('company-2-whatsappSession', { action: 'update', seq: 1, session: connectionFixture(1, { status: 'CONNECTED' }) }));
    expect(screen.getByTestId('qrcode-dialog')).toBeInTheDocument();

    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 8, session: connectionFixture(1, { status: 'CONNECTED', number: '5511988887777' }) }));
    await waitFor(() => expect(screen.queryByTestId('qrcode-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('connections-status-1')).toHaveTextContent('Conectado');
    expect(screen.getByTestId('connections-row-1')).toHaveTextContent('5511988887777');
  });

  it('waits for a QR not there yet and closes when the QR becomes empty', async () => {
    server(() => [connectionFixture(1, { status: 'qrcode', qrcode: '' })]);
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-qr-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    expect(within(dialog).queryByTestId('qrcode-image')).not.toBeInTheDocument();
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 1, session: connectionFixture(1, { status: 'qrcode', qrcode: QR1 }) }));
    expect(await within(dialog).findByTestId('qrcode-image')).toHaveAttribute('src', QR1);
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 2, session: connectionFixture(1, { status: 'TIMEOUT', qrcode: '' }) }));
    await waitFor(() => expect(screen.queryByTestId('qrcode-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('connections-disconnect-1')).toBeInTheDocument();
  });

  it('creates a connection: validates the name, then posts the general tab', async () => {
    let list = [connectionFixture(1)];
    const api = server(() => list, {
      'POST /whatsapp': ({ body }) => {
        const created = connectionFixture(9, { ...(body as object), status: 'OPENING' });
        list = [...list, created];
        return created;
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-add'));
    await user.click(await screen.findByTestId('connections-add-whatsapp'));
    const modal = await screen.findByTestId('connection-modal');
    await user.type(within(modal).getByTestId('connection-modal-name'), 'A');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    expect(await within(modal).findByText('Muito curto!')).toBeInTheDocument();
    await user.type(within(modal).getByTestId('connection-modal-name'), 'tendimento');
    await user.click(within(modal).getByTestId('connection-modal-allowGroup'));
    await user.click(within(modal).getByTestId('connection-modal-groupAsTicket'));
    await user.type(within(modal).getByTestId('connection-modal-greetingMessage'), 'Olá!');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('connection-modal')).not.toBeInTheDocument());
    expect(api.find('POST', '/whatsapp')[0].body).toMatchObject({
      name: 'Atendimento',
      channel: 'whatsapp',
      isDefault: false,
      greetingMessage: 'Olá!',
      allowGroup: true,
      groupAsTicket: true,
      queueIds: [],
      maxUseBotQueues: 3,
    });
    expect(await screen.findByText('Conexão salva com sucesso!')).toBeInTheDocument();
    expect(await screen.findByTestId('connections-row-9')).toHaveTextContent('Atendimento');
  });

  it('edits a connection keeping the other tabs, regenerates and copies the token', async () => {
    const original = connectionFixture(1, { timeSendQueue: 5, sendIdQueue: 4, queueIds: [4], greetingMessage: 'Oi' });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
      'POST /whatsapp/:id/token': () => ({ token: 'N'.repeat(30) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-name')).toHaveValue('Conexão 1'));
    expect(within(modal).getByTestId('connection-modal-token')).toHaveValue(original.token);
    await user.click(within(modal).getByTestId('connection-modal-token-regenerate'));
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-token')).toHaveValue('N'.repeat(30)));
    await user.click(within(modal).getByTestId('connection-modal-token-copy'));
    // user-event stands in for the clipboard
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe('N'.repeat(30)));
    expect(await screen.findByText('Token copiado!')).toBeInTheDocument();
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    expect(api.find('PUT', '/whatsapp/1')[0].body).toMatchObject({ name: 'Conexão 1', greetingMessage: 'Oi', queueIds: [4], timeSendQueue: 5, sendIdQueue: 4 });
  });

  it('deletes a connection after confirmation', async () => {
    let list = [connectionFixture(1), connectionFixture(2)];
    const api = server(() => list, {
      'DELETE /whatsapp/:id': () => {
        list = list.filter((c) => c.id !== 2);
        return undefined;
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-delete-2'));
    await user.click(await screen.findByTestId('connections-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('connections-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/whatsapp/2')).toHaveLength(1);
    expect(await screen.findByText('Conexão excluída com sucesso!')).toBeInTheDocument();
  });

  it('hides add, edit and session actions without the capabilities', async () => {
    const permissions = ['menu:connections'];
    server(() => [connectionFixture(3)], {}, authFixture({ permissions, user: { profile: 'user', super: false } }));
    renderApp('/connections');
    expect(await screen.findByTestId('connections-row-3')).toBeInTheDocument();
    expect(screen.queryByTestId('connections-add')).not.toBeInTheDocument();
    expect(screen.queryByTestId('connections-edit-3')).not.toBeInTheDocument();
    expect(screen.queryByTestId('connections-restart-all')).not.toBeInTheDocument();
    expect(screen.getByTestId('connections-disconnect-3')).toBeDisabled();
  });

  it('shows the 403 page without the capability (allowConnections disabled)', async () => {
    server(() => [], {}, authFixture({ permissions: ADMIN_INBOX_PERMISSIONS.filter((p) => p !== 'menu:connections') }));
    renderApp('/connections');
    expect(await screen.findByTestId('forbidden-page')).toBeInTheDocument();
    expect(screen.queryByTestId('connections-page')).not.toBeInTheDocument();
    expect(screen.queryByTestId('menu-connections')).not.toBeInTheDocument();
  });

  it('badges the side menu 2000 ms later while a connection needs attention', async () => {
    let list = [connectionFixture(1, { status: 'DISCONNECTED' })];
    server(() => list);
    renderApp('/users');
    const badge = await screen.findByTestId('menu-connections-badge');
    expect(badge).toHaveAttribute('data-alert', 'false');
    await waitFor(() => expect(screen.getByTestId('menu-connections-badge')).toHaveAttribute('data-alert', 'true'), { timeout: 4000 });
    list = [connectionFixture(1)];
    act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 3, whatsapp: connectionFixture(1) }));
    await waitFor(() => expect(screen.getByTestId('menu-connections-badge')).toHaveAttribute('data-alert', 'false'));
  });
});
