import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_INBOX_PERMISSIONS, adminAuth, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { connectionFixture, inboundFailureFixture } from '../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

let scheduleType = 'disabled';
/** What `GET /whatsapp/providers` answers: a server that runs the sandbox, by default. */
let providers: unknown = { providers: ['beta', 'sandbox'], default: 'sandbox' };

function server(connections: () => unknown[], routes: Record<string, MockHandler> = {}, auth: unknown = adminAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /queue': () => [{ id: 4, name: 'Suporte', color: '#f00' }],
    'GET /whatsapp': () => connections(),
    // Before `/whatsapp/:id`, which would match it too.
    'GET /whatsapp/providers': () => providers,
    'GET /settings': () => [{ key: 'scheduleType', value: scheduleType }],
    'GET /flowbuilder': ({ query }) =>
      query.get('pageNumber') === '1'
        ? { flows: [{ id: 31, name: 'Boas-vindas' }], hasMore: true, count: 2 }
        : { flows: [{ id: 32, name: 'Sem frase' }], hasMore: false, count: 2 },
    ...routes,
  });
}

/** Picks `value` in the select whose display carries `testId`. */
async function choose(user: ReturnType<typeof userEvent.setup>, testId: string, value: string | number) {
  await user.click(await screen.findByTestId(testId));
  await user.click(await screen.findByTestId(`${testId}-option-${value}`));
}

const QR1 = 'data:image/png;base64,AAAA';
const QR2 = 'data:image/png;base64,BBBB';

beforeEach(async () => {
  scheduleType = 'disabled';
  providers = { providers: ['beta', 'sandbox'], default: 'sandbox' };
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
    // Restart all asks first: cancelling sends nothing, confirming restarts and says so.
    await user.click(screen.getByTestId('connections-restart-all'));
    expect(await screen.findByText('Reiniciar todas as conexões?')).toBeInTheDocument();
    await user.click(screen.getByTestId('connections-restart-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('connections-restart-dialog')).not.toBeInTheDocument());
    expect(api.find('POST', '/whatsapp-restart/')).toHaveLength(0);
    await user.click(screen.getByTestId('connections-restart-all'));
    await user.click(await screen.findByTestId('connections-restart-dialog-confirm'));
    await waitFor(() => expect(api.find('POST', '/whatsapp-restart/')).toHaveLength(1));
    expect(await screen.findByTestId('toast-success')).toHaveTextContent('Reinício solicitado: as conexões estão reconectando.');
    await waitFor(() => expect(screen.queryByTestId('connections-restart-dialog')).not.toBeInTheDocument());
  });

  it('says when restarting the connections fails', async () => {
    server(() => [connectionFixture(1)], {
      'POST /whatsapp-restart/': () => reply(403, { error: 'ERR_NO_PERMISSION', message: 'no' }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-restart-all'));
    await user.click(await screen.findByTestId('connections-restart-dialog-confirm'));
    expect(await screen.findByTestId('toast-error')).toBeInTheDocument();
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
    await user.click(within(modal).getByTestId('connection-modal-tab-messages'));
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
      flowIdWelcome: null,
      flowIdNotPhrase: null,
      collectiveVacationStart: null,
      collectiveVacationEnd: null,
      schedules: [],
    });
    expect(await screen.findByText('Conexão salva com sucesso!')).toBeInTheDocument();
    expect(await screen.findByTestId('connections-row-9')).toHaveTextContent('Atendimento');
  });

  it('offers the connection type when the server runs two providers: WhatsApp by default, the sandbox when chosen', async () => {
    let list = [connectionFixture(1, { provider: 'beta' })];
    const api = server(() => list, {
      'POST /whatsapp': ({ body }) => {
        const created = connectionFixture(10 + list.length, { ...(body as object), status: 'qrcode' });
        list = [...list, created];
        return created;
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const create = async (name: string, provider?: string) => {
      await user.click(await screen.findByTestId('connections-add'));
      await user.click(await screen.findByTestId('connections-add-whatsapp'));
      const modal = await screen.findByTestId('connection-modal');
      const select = await within(modal).findByTestId('connection-modal-provider');
      expect(select).toHaveAccessibleName('Tipo de conexão');
      expect(select).toHaveAccessibleDescription('Não pode ser alterado depois que a conexão é criada.');
      // A real WhatsApp unless the sandbox is asked for, whatever the server's default.
      expect(select).toHaveTextContent('WhatsApp (QR Code ou número de telefone)');
      if (provider) {
        await user.click(select);
        expect(await screen.findByTestId('connection-modal-provider-option-beta')).toHaveTextContent('WhatsApp (QR Code ou número de telefone)');
        expect(screen.getByTestId('connection-modal-provider-option-sandbox')).toHaveTextContent('Sandbox (telefone simulado, para testes)');
        await user.click(screen.getByTestId(`connection-modal-provider-option-${provider}`));
        expect(select).toHaveTextContent('Sandbox (telefone simulado, para testes)');
      }
      await user.type(within(modal).getByTestId('connection-modal-name'), name);
      await user.click(within(modal).getByTestId('connection-modal-save'));
      await waitFor(() => expect(screen.queryByTestId('connection-modal')).not.toBeInTheDocument());
    };

    await create('Atendimento');
    expect(api.find('POST', '/whatsapp')[0].body).toMatchObject({ name: 'Atendimento', channel: 'whatsapp', provider: 'beta' });
    await create('Testes', 'sandbox');
    expect(api.find('POST', '/whatsapp')[1].body).toMatchObject({ name: 'Testes', channel: 'whatsapp', provider: 'sandbox' });
    expect(api.find('GET', '/whatsapp/providers')).toHaveLength(1);

    // The table tells the sandbox's connections apart.
    expect(await screen.findByTestId('connections-sandbox-12')).toHaveTextContent('Sandbox');
    expect(screen.getByTestId('connections-row-11')).toHaveTextContent('Atendimento');
    expect(screen.queryByTestId('connections-sandbox-11')).not.toBeInTheDocument();
    expect(screen.queryByTestId('connections-sandbox-1')).not.toBeInTheDocument();
  });

  it('shows no connection type when the server runs one provider, or does not say', async () => {
    providers = { providers: ['beta'], default: 'beta' };
    const api = server(() => [], { 'POST /whatsapp': ({ body }) => connectionFixture(9, { ...(body as object) }) });
    const { unmount } = renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-add'));
    await user.click(await screen.findByTestId('connections-add-whatsapp'));
    let modal = await screen.findByTestId('connection-modal');
    // Saving waits for the answer.
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-save')).toBeEnabled());
    expect(api.find('GET', '/whatsapp/providers')).toHaveLength(1);
    expect(within(modal).queryByTestId('connection-modal-provider')).not.toBeInTheDocument();
    expect(within(modal).queryByText('Tipo de conexão')).not.toBeInTheDocument();
    await user.type(within(modal).getByTestId('connection-modal-name'), 'Atendimento');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('POST', '/whatsapp')).toHaveLength(1));
    // The one provider the server runs.
    expect(api.find('POST', '/whatsapp')[0].body).toMatchObject({ name: 'Atendimento', provider: 'beta' });
    unmount();

    // A server without the route: no choice, and the server picks.
    providers = reply(404, { error: 'ERR_NOT_FOUND', message: 'no' });
    const older = server(() => [], { 'POST /whatsapp': ({ body }) => connectionFixture(9, { ...(body as object) }) });
    renderApp('/connections');
    await user.click(await screen.findByTestId('connections-add'));
    await user.click(await screen.findByTestId('connections-add-whatsapp'));
    modal = await screen.findByTestId('connection-modal');
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-save')).toBeEnabled());
    expect(within(modal).queryByTestId('connection-modal-provider')).not.toBeInTheDocument();
    await user.type(within(modal).getByTestId('connection-modal-name'), 'Atendimento');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(older.find('POST', '/whatsapp')).toHaveLength(1));
    expect(older.find('POST', '/whatsapp')[0].body).not.toHaveProperty('provider');
  });

  it('shows a stored connection\'s type read-only and keeps it', async () => {
    const original = connectionFixture(1, { provider: 'sandbox' });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    expect(await screen.findByTestId('connections-sandbox-1')).toHaveTextContent('Sandbox');
    await user.click(screen.getByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    const readOnly = await within(modal).findByTestId('connection-modal-provider-readonly');
    expect(readOnly).toHaveTextContent('Tipo de conexão');
    expect(within(readOnly).getByTestId('connection-modal-provider-value')).toHaveTextContent('Sandbox (telefone simulado, para testes)');
    expect(readOnly).toHaveTextContent('Não pode ser alterado depois que a conexão é criada.');
    expect(within(modal).queryByTestId('connection-modal-provider')).not.toBeInTheDocument();
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    expect(api.find('PUT', '/whatsapp/1')[0].body).toMatchObject({ provider: 'sandbox' });
    // Editing asks nothing about the server's providers.
    expect(api.find('GET', '/whatsapp/providers')).toHaveLength(0);
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

  it('shows the general, messages and chatbot tabs, and the schedules tab only with scheduleType connection', async () => {
    server(() => [connectionFixture(1)], { 'GET /whatsapp/:id': () => connectionFixture(1) });
    const { unmount } = renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    expect(within(modal).getByTestId('connection-modal-tab-general')).toHaveTextContent('Geral');
    expect(within(modal).getByTestId('connection-modal-tab-messages')).toHaveTextContent('Mensagens');
    expect(within(modal).getByTestId('connection-modal-tab-chatbot')).toHaveTextContent('Chatbot');
    // The settings load after the dialog opens; the tab must still not appear.
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-flowIdWelcome')).toBeInTheDocument());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(modal).queryByTestId('connection-modal-tab-schedules')).not.toBeInTheDocument();
    expect(within(modal).queryByTestId('connection-modal-schedule')).not.toBeInTheDocument();
    unmount();

    scheduleType = 'connection';
    server(() => [connectionFixture(1)], { 'GET /whatsapp/:id': () => connectionFixture(1) });
    renderApp('/connections');
    await user.click(await screen.findByTestId('connections-edit-1'));
    const again = await screen.findByTestId('connection-modal');
    const schedulesTab = await within(again).findByTestId('connection-modal-tab-schedules');
    expect(schedulesTab).toHaveTextContent('Horários');
    await user.click(schedulesTab);
    expect(schedulesTab).toHaveAttribute('aria-selected', 'true');
    // Never set: the queues' default week.
    expect(within(again).getByTestId('connection-modal-schedule-monday-startTimeA')).toHaveValue('08:00');
    expect(within(again).getByTestId('connection-modal-schedule-sunday-endTimeB')).toHaveValue('18:00');
  });

  it('sends the messages, chatbot and schedules tabs in the body', async () => {
    scheduleType = 'connection';
    const original = connectionFixture(1, { maxUseBotQueuesNPS: 4, expiresTicketNPS: 9, inactiveMessage: 'Ainda aí?', timeInactiveMessage: 7 });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-name')).toHaveValue('Conexão 1'));

    await user.click(within(modal).getByTestId('connection-modal-tab-messages'));
    await user.type(within(modal).getByTestId('connection-modal-outOfHoursMessage'), 'Fechado');
    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationStart'), { target: { value: '2026-12-24' } });
    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationEnd'), { target: { value: '2026-12-31' } });
    await user.type(within(modal).getByTestId('connection-modal-collectiveVacationMessage'), 'Férias!');

    await user.click(within(modal).getByTestId('connection-modal-tab-chatbot'));
    await user.clear(within(modal).getByTestId('connection-modal-timeSendQueue'));
    await user.type(within(modal).getByTestId('connection-modal-timeSendQueue'), '15');
    await choose(user, 'connection-modal-sendIdQueue', 4);
    await choose(user, 'connection-modal-flowIdWelcome', 31);
    // Flows of every page are listed.
    await choose(user, 'connection-modal-flowIdNotPhrase', 32);

    await user.click(await screen.findByTestId('connection-modal-tab-schedules'));
    const sundayEnd = within(modal).getByTestId('connection-modal-schedule-sunday-endTimeB');
    fireEvent.change(sundayEnd, { target: { value: '' } });
    fireEvent.change(within(modal).getByTestId('connection-modal-schedule-sunday-startTimeB'), { target: { value: '' } });

    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    const body = api.find('PUT', '/whatsapp/1')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({
      outOfHoursMessage: 'Fechado',
      collectiveVacationStart: '2026-12-24',
      collectiveVacationEnd: '2026-12-31',
      collectiveVacationMessage: 'Férias!',
      timeSendQueue: 15,
      sendIdQueue: 4,
      flowIdWelcome: 31,
      flowIdNotPhrase: 32,
      maxUseBotQueuesNPS: 4,
      expiresTicketNPS: 9,
      inactiveMessage: 'Ainda aí?',
      timeInactiveMessage: 7,
    });
    const schedules = body.schedules as Record<string, string>[];
    expect(schedules).toHaveLength(7);
    expect(schedules[0]).toEqual({ weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' });
    expect(schedules[6]).toMatchObject({ weekdayEn: 'sunday', startTimeB: '', endTimeB: '' });
  });

  it('keeps stored hours when they are not kept per connection, and a chosen "none" flow is sent as null', async () => {
    const hours = [{ weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '09:00', endTimeA: '17:00', startTimeB: '', endTimeB: '' }];
    const original = connectionFixture(1, { schedules: hours, flowIdWelcome: 31 });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    await user.click(within(modal).getByTestId('connection-modal-tab-chatbot'));
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-flowIdWelcome')).toHaveTextContent('Boas-vindas'));
    await choose(user, 'connection-modal-flowIdWelcome', '');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    expect(api.find('PUT', '/whatsapp/1')[0].body).toMatchObject({ schedules: hours, flowIdWelcome: null });
  });

  it('shows a half-filled vacation on the messages tab, and server field errors on their tab', async () => {
    const original = connectionFixture(1);
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': () => reply(404, { error: 'ERR_NO_FLOW_FOUND', message: 'Flow not found.', fields: [{ field: 'flowIdNotPhrase', code: 'INVALID_FORMAT' }] }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-edit-1'));
    const modal = await screen.findByTestId('connection-modal');
    await user.click(within(modal).getByTestId('connection-modal-tab-messages'));
    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationStart'), { target: { value: '2026-12-24' } });
    await user.click(within(modal).getByTestId('connection-modal-tab-general'));
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-tab-messages')).toHaveAttribute('aria-selected', 'true'));
    expect(within(modal).getByText('Informe o início e o fim das férias')).toBeInTheDocument();
    expect(api.find('PUT', '/whatsapp/1')).toHaveLength(0);

    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationEnd'), { target: { value: '2026-12-20' } });
    await user.click(within(modal).getByTestId('connection-modal-save'));
    expect(await within(modal).findByText('O fim deve ser igual ou posterior ao início')).toBeInTheDocument();

    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationStart'), { target: { value: '' } });
    fireEvent.change(within(modal).getByTestId('connection-modal-collectiveVacationEnd'), { target: { value: '' } });
    await user.click(within(modal).getByTestId('connection-modal-tab-general'));
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-tab-chatbot')).toHaveAttribute('aria-selected', 'true'));
    expect(within(modal).getAllByText('Fluxo não encontrado.').length).toBeGreaterThan(0);
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

describe('/connections gaps after an outage', () => {
  /** RFC 3339 of a local time on 29/11/2026 (the table shows local times). */
  const at = (hour: number, minute: number) => new Date(2026, 10, 29, hour, minute).toISOString();
  const gap = (overrides: Record<string, unknown> = {}) => ({ id: 5, from: at(10, 1), to: at(10, 9), state: 'checking', fetched: 0, noted: 0, ...overrides });

  it('shows since when a connection is down, and its last gap: checking, then what the check did', async () => {
    server(() => [
      connectionFixture(1, { lastGap: gap() }),
      connectionFixture(2, { status: 'DISCONNECTED', downSince: at(11, 30), lastGap: null }),
      // A server without gaps: neither field.
      connectionFixture(3),
    ]);
    renderApp('/connections');
    const interval = await screen.findByTestId('connections-gap-interval-1');
    expect(interval).toHaveTextContent('Mensagens podem estar faltando entre 29/11/26 10:01 e 29/11/26 10:09');
    expect(screen.getByTestId('connections-gap-1')).toHaveAttribute('data-state', 'checking');
    expect(screen.getByTestId('connections-gap-state-1')).toHaveTextContent('Verificando…');
    expect(screen.queryByTestId('connections-down-1')).not.toBeInTheDocument();
    expect(screen.getByTestId('connections-down-2')).toHaveTextContent('fora do ar desde 29/11/26 11:30');
    expect(screen.queryByTestId('connections-gap-2')).not.toBeInTheDocument();
    expect(screen.queryByTestId('connections-gap-3')).not.toBeInTheDocument();
    expect(screen.queryByTestId('connections-down-3')).not.toBeInTheDocument();

    // The phone was asked: the gap waits for its answer until a time it shows.
    act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 3, whatsapp: connectionFixture(1, { lastGap: gap({ state: 'asked', fetched: 12, noted: 1, answerBy: at(10, 16) }) }) }));
    await waitFor(() => expect(screen.getByTestId('connections-gap-1')).toHaveAttribute('data-state', 'asked'));
    expect(screen.getByTestId('connections-gap-state-1')).toHaveTextContent('Conversas pedidas ao celular: 12 · aguardando a resposta até 29/11/26 10:16');

    // The check ends: the counts arrive with the connection's update.
    act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 4, whatsapp: connectionFixture(1, { lastGap: gap({ state: 'checked', fetched: 12, noted: 3 }) }) }));
    await waitFor(() => expect(screen.getByTestId('connections-gap-1')).toHaveAttribute('data-state', 'checked'));
    expect(screen.getByTestId('connections-gap-state-1')).toHaveTextContent('Conversas pedidas ao celular: 12 · marcadas com o aviso: 3');
    // A session update that does not carry the gap leaves it.
    act(() => lastSocket().serverEmit('company-1-whatsappSession', { action: 'update', seq: 5, session: connectionFixture(1) }));
    expect(screen.getByTestId('connections-gap-1')).toBeInTheDocument();

    await setLanguage('en');
    try {
      await waitFor(() => expect(screen.getByTestId('connections-gap-interval-1')).toHaveTextContent('Messages may be missing between 29/11/26 10:01 and 29/11/26 10:09'));
      expect(screen.getByTestId('connections-gap-state-1')).toHaveTextContent('Conversations asked from the phone: 12 · marked with the notice: 3');
      expect(screen.getByTestId('connections-down-2')).toHaveTextContent('down since 29/11/26 11:30');
    } finally {
      await setLanguage('pt');
    }
  });

  it('dismisses the gap with DELETE /whatsapp/{id}/gap, and says when that fails', async () => {
    let list = [connectionFixture(1, { lastGap: gap({ state: 'checked', fetched: 2, noted: 0 }) }), connectionFixture(2, { lastGap: gap({ id: 6 }) })];
    const api = server(() => list, {
      'DELETE /whatsapp/:id/gap': ({ path }) => {
        const id = Number(path.split('/')[2]);
        if (id === 2) return reply(404, { error: 'ERR_NO_WAPP_FOUND', message: 'no' });
        list = list.map((c) => (c.id === id ? { ...c, lastGap: null } : c));
        return undefined;
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const dismiss = await screen.findByTestId('connections-gap-dismiss-1');
    expect(dismiss).toHaveAccessibleName('Dispensar');
    await user.click(dismiss);
    await waitFor(() => expect(screen.queryByTestId('connections-gap-1')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/whatsapp/1/gap')).toHaveLength(1);
    // Not the connection itself.
    expect(api.find('DELETE', '/whatsapp/1')).toHaveLength(0);

    await user.click(screen.getByTestId('connections-gap-dismiss-2'));
    expect(await screen.findByTestId('toast-error')).toBeInTheDocument();
    expect(screen.getByTestId('connections-gap-2')).toBeInTheDocument();
  });

  it('a gap dismissed elsewhere goes with the update event; without the session capability there is no dismiss button', async () => {
    server(() => [connectionFixture(3, { lastGap: gap() })], {}, authFixture({ permissions: ['menu:connections'], user: { profile: 'user', super: false } }));
    renderApp('/connections');
    expect(await screen.findByTestId('connections-gap-3')).toBeInTheDocument();
    expect(screen.queryByTestId('connections-gap-dismiss-3')).not.toBeInTheDocument();
    act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 9, whatsapp: connectionFixture(3, { lastGap: null }) }));
    await waitFor(() => expect(screen.queryByTestId('connections-gap-3')).not.toBeInTheDocument());
  });

  it('tells when a connection drops and when it is back, from the socket, not on the first load', async () => {
    server(() => [connectionFixture(1), connectionFixture(2, { status: 'DISCONNECTED', downSince: at(11, 30) }), connectionFixture(3, { status: 'qrcode' })]);
    renderApp('/users');
    // The alert is armed 2000 ms after the menu shows: the badge says it has read the connections.
    await waitFor(() => expect(screen.getByTestId('menu-connections-badge')).toHaveAttribute('data-alert', 'true'), { timeout: 4000 });
    expect(screen.queryByTestId('toast-warning')).not.toBeInTheDocument();
    expect(screen.queryByTestId('toast-success')).not.toBeInTheDocument();

    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 1, session: connectionFixture(1, { status: 'OPENING', downSince: at(12, 0) }) }));
    expect(await screen.findByTestId('toast-warning')).toHaveTextContent('A conexão Conexão 1 caiu');
    // Still down: nothing more.
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 2, session: connectionFixture(1, { status: 'DISCONNECTED', downSince: at(12, 0) }) }));
    act(() => socket.serverEmit('company-1-whatsapp', { action: 'update', seq: 3, whatsapp: connectionFixture(2, { status: 'CONNECTED', downSince: null }) }));
    expect(await screen.findByText('A conexão Conexão 2 voltou')).toBeInTheDocument();
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 4, session: connectionFixture(1, { status: 'CONNECTED', downSince: null }) }));
    expect(await screen.findByText('A conexão Conexão 1 voltou')).toBeInTheDocument();
    // A first link is not a return.
    act(() => socket.serverEmit('company-1-whatsappSession', { action: 'update', seq: 5, session: connectionFixture(3, { status: 'CONNECTED' }) }));
    await waitFor(() => expect(screen.getByTestId('menu-connections-badge')).toHaveAttribute('data-alert', 'false'));
    expect(screen.queryByText('A conexão Conexão 3 voltou')).not.toBeInTheDocument();
    expect(screen.getAllByTestId('toast-warning')).toHaveLength(1);
  });

  it('words the notices in the chosen language', async () => {
    await setLanguage('en');
    try {
      server(() => [connectionFixture(1), connectionFixture(2, { status: 'qrcode' })]);
      renderApp('/users');
      await waitFor(() => expect(screen.getByTestId('menu-connections-badge')).toHaveAttribute('data-alert', 'true'), { timeout: 4000 });
      act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 1, whatsapp: connectionFixture(1, { status: 'DISCONNECTED', downSince: at(12, 0) }) }));
      expect(await screen.findByTestId('toast-warning')).toHaveTextContent('Connection Conexão 1 dropped');
      act(() => lastSocket().serverEmit('company-1-whatsapp', { action: 'update', seq: 2, whatsapp: connectionFixture(1) }));
      expect(await screen.findByTestId('toast-success')).toHaveTextContent('Connection Conexão 1 is back');
    } finally {
      await setLanguage('pt');
    }
  });
});

describe('/connections inbound failures', () => {
  /** A stateful `/inbound-failures`: 20 a page, newest first, like the server. */
  function failuresServer(initial: ReturnType<typeof inboundFailureFixture>[], routes: Record<string, MockHandler> = {}, auth: unknown = adminAuth()) {
    let failures = initial;
    const api = server(() => [connectionFixture(1), connectionFixture(2)], {
      'GET /inbound-failures': ({ query }) => {
        const page = Number(query.get('pageNumber') ?? '1');
        return { failures: failures.slice((page - 1) * 20, page * 20), count: failures.length, hasMore: failures.length > page * 20 };
      },
      'DELETE /inbound-failures/:id': ({ path }) => {
        const id = Number(path.split('/')[2]);
        failures = failures.filter((f) => f.id !== id);
        return undefined;
      },
      ...routes,
    }, auth);
    return { api, set: (next: typeof failures) => (failures = next), get: () => failures };
  }

  it('hides the button without the admin capability, and when there is none', async () => {
    const { api } = failuresServer([inboundFailureFixture(1)], {}, adminAuth(ADMIN_INBOX_PERMISSIONS.filter((p) => p !== 'user-modal:editProfile')));
    const { unmount } = renderApp('/connections');
    await screen.findByTestId('connections-row-1');
    expect(screen.queryByTestId('inbound-failures-open')).not.toBeInTheDocument();
    expect(api.find('GET', '/inbound-failures')).toHaveLength(0);
    unmount();

    const empty = failuresServer([]);
    renderApp('/connections');
    await screen.findByTestId('connections-row-1');
    await waitFor(() => expect(empty.api.find('GET', '/inbound-failures')).toHaveLength(1));
    // the answer (count 0) is in
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByTestId('inbound-failures-open')).not.toBeInTheDocument();
  });

  it('lists a failure with its connection, summary, translated error, detail and attempts, and loads more pages', async () => {
    const many = Array.from({ length: 21 }, (_, i) => inboundFailureFixture(30 - i, { whatsappId: 2 }));
    many[0] = inboundFailureFixture(30, {
      whatsappId: 2,
      attempts: 3,
      event: { ...inboundFailureFixture(30).event, body: '', media: { mediaType: 'document', fileName: 'nota.pdf', mimeType: 'application/pdf', bytes: '' } },
    });
    many[1] = inboundFailureFixture(29, { event: { type: 'ack', externalId: 'x', ack: 3 }, error: 'ERR_INTERNAL', detail: 'database busy' });
    failuresServer(many);
    renderApp('/connections');
    const user = userEvent.setup();
    const open = await screen.findByTestId('inbound-failures-open');
    expect(open).toHaveTextContent('Mensagens não armazenadas (21)');
    await user.click(open);
    const row = await screen.findByTestId('inbound-failure-30');
    expect(row).toHaveTextContent('Conexão 2');
    expect(row).toHaveTextContent('04/03/26 15:07');
    expect(within(row).getByTestId('inbound-failure-summary-30')).toHaveTextContent('Mensagem de Maria (5511988887777): nota.pdf');
    expect(within(row).getByTestId('inbound-failure-error-30')).toHaveTextContent('Verifique os campos destacados.');
    expect(within(row).getByTestId('inbound-failure-error-30')).toHaveTextContent('body: too long');
    expect(within(row).getByTestId('inbound-failure-attempts-30')).toHaveTextContent('3');
    const ack = screen.getByTestId('inbound-failure-29');
    expect(within(ack).getByTestId('inbound-failure-summary-29')).toHaveTextContent('Confirmação de entrega');
    expect(within(ack).getByTestId('inbound-failure-error-29')).toHaveTextContent('Erro interno do servidor');
    expect(within(ack).getByTestId('inbound-failure-error-29')).toHaveTextContent('database busy');
    expect(screen.getByTestId('inbound-failure-11')).toHaveTextContent('Olá, preciso de ajuda 11');
    expect(screen.queryByTestId('inbound-failure-10')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('inbound-failures-more'));
    expect(await screen.findByTestId('inbound-failure-10')).toBeInTheDocument();
    expect(screen.queryByTestId('inbound-failures-more')).not.toBeInTheDocument();
  });

  it('retries: a delivered row leaves the list with a toast, a failing one is updated', async () => {
    const state = failuresServer([inboundFailureFixture(2), inboundFailureFixture(1)], {
      'POST /inbound-failures/:id/retry': ({ path }) => {
        const id = Number(path.split('/')[2]);
        if (id === 2) {
          state.set(state.get().filter((f) => f.id !== 2));
          return { delivered: true, failure: null };
        }
        const again = inboundFailureFixture(1, { attempts: 2, error: 'ERR_INTERNAL', detail: 'still busy' });
        state.set(state.get().map((f) => (f.id === 1 ? again : f)));
        return { delivered: false, failure: again };
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('inbound-failures-open'));
    await user.click(await screen.findByTestId('inbound-failure-retry-2'));
    await waitFor(() => expect(screen.queryByTestId('inbound-failure-2')).not.toBeInTheDocument());
    expect(await screen.findByText('Mensagem armazenada com sucesso!')).toBeInTheDocument();
    expect(state.api.find('POST', '/inbound-failures/2/retry')).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('inbound-failures-open')).toHaveTextContent('(1)'));

    await user.click(screen.getByTestId('inbound-failure-retry-1'));
    await waitFor(() => expect(screen.getByTestId('inbound-failure-attempts-1')).toHaveTextContent('2'));
    expect(screen.getByTestId('inbound-failure-error-1')).toHaveTextContent('still busy');
    expect(screen.getByTestId('inbound-failure-1')).toBeInTheDocument();
  });

  it('discards after confirmation and the button goes when none is left', async () => {
    const { api } = failuresServer([inboundFailureFixture(5)]);
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('inbound-failures-open'));
    await user.click(await screen.findByTestId('inbound-failure-discard-5'));
    expect(await screen.findByText('Descartar esta mensagem?')).toBeInTheDocument();
    expect(api.find('DELETE', '/inbound-failures/5')).toHaveLength(0);
    await user.click(screen.getByTestId('inbound-failures-discard-dialog-confirm'));
    await waitFor(() => expect(api.find('DELETE', '/inbound-failures/5')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByTestId('inbound-failure-5')).not.toBeInTheDocument());
    expect(await screen.findByText('Mensagem descartada.')).toBeInTheDocument();
    expect(screen.getByTestId('inbound-failures-empty')).toBeInTheDocument();
    await user.click(screen.getByTestId('inbound-failures-close'));
    await waitFor(() => expect(screen.queryByTestId('inbound-failures-open')).not.toBeInTheDocument());
  });
});
