/**
 * Old-message import on /connections (spec 2): the dialog's import tab (checks, body, the warning
 * before a CONNECTED connection is unlinked), the live progress cards from `importMessages-{id}`,
 * the "preparing" mark of a fresh history chunk and the button that closes the imported tickets.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { adminAuth } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { connectionFixture } from '../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function server(connections: () => unknown[], routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => adminAuth(),
    'GET /queue': () => [
      { id: 4, name: 'Suporte', color: '#f00' },
      { id: 5, name: 'Vendas', color: '#0f0' },
    ],
    'GET /whatsapp': () => connections(),
    'GET /whatsapp/providers': () => ({ providers: ['beta'], default: 'beta' }),
    'GET /settings': () => [{ key: 'scheduleType', value: 'disabled' }],
    'GET /flowbuilder': () => ({ flows: [], hasMore: false, count: 0 }),
    ...routes,
  });
}

const DAY = 86_400_000;
const two = (n: number) => String(n).padStart(2, '0');
/** A Date as a `datetime-local` value (local time, to the minute). */
const local = (date: Date) => `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
/** The instant the server gets for a `datetime-local` value. */
const instant = (value: string) => new Date(value).toISOString();

/** Picks `value` in the select whose display carries `testId`. */
async function choose(user: ReturnType<typeof userEvent.setup>, testId: string, value: string | number) {
  await user.click(await screen.findByTestId(testId));
  await user.click(await screen.findByTestId(`${testId}-option-${value}`));
}

/** Opens connection `id`'s dialog on its import tab. */
async function openImportTab(user: ReturnType<typeof userEvent.setup>, id: number) {
  await user.click(await screen.findByTestId(`connections-edit-${id}`));
  const modal = await screen.findByTestId('connection-modal');
  await waitFor(() => expect(within(modal).getByTestId('connection-modal-name')).toHaveValue(`Conexão ${id}`));
  const tab = within(modal).getByTestId('connection-modal-tab-import');
  expect(tab).toHaveTextContent('Importar mensagens');
  await user.click(tab);
  return modal;
}

function progress(seq: number, whatsappId: number, done: number, total: number, date: string | null = null, company = 1) {
  act(() => lastSocket().serverEmit(`importMessages-${company}`, { action: 'update', seq, status: { this: done, all: total, date, whatsappId } }));
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('connection dialog: import of old messages', () => {
  it('checks the dates and the queue before sending, then sends the import fields', async () => {
    const original = connectionFixture(1, { status: 'qrcode' });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const modal = await openImportTab(user, 1);
    const panel = within(modal).getByTestId('connection-modal-import');
    expect(within(panel).queryByTestId('connection-modal-importOldMessages')).not.toBeInTheDocument();
    await user.click(within(modal).getByTestId('connection-modal-enableImportMessage'));
    // Not connected: nothing to warn about.
    expect(within(modal).queryByTestId('connection-modal-import-unlink-warning')).not.toBeInTheDocument();

    // Saved from another tab, the import tab with its errors comes forward.
    await user.click(within(modal).getByTestId('connection-modal-tab-general'));
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(within(modal).getByTestId('connection-modal-tab-import')).toHaveAttribute('aria-selected', 'true'));
    expect(within(panel).getAllByText('Obrigatório')).toHaveLength(3);

    const from = within(modal).getByTestId('connection-modal-importOldMessages');
    const to = within(modal).getByTestId('connection-modal-importRecentMessages');
    const now = new Date();
    const threeYearsAgo = new Date(now.getTime());
    threeYearsAgo.setFullYear(now.getFullYear() - 3);
    fireEvent.change(from, { target: { value: local(threeYearsAgo) } });
    fireEvent.change(to, { target: { value: local(new Date(now.getTime() + DAY)) } });
    await user.click(within(modal).getByTestId('connection-modal-save'));
    expect(await within(panel).findByText('No máximo 2 anos atrás')).toBeInTheDocument();
    expect(within(panel).getByText('Não pode estar no futuro')).toBeInTheDocument();
    // The queue is still missing.
    expect(within(panel).getAllByText('Obrigatório')).toHaveLength(1);

    const start = local(new Date(now.getTime() - 30 * DAY));
    fireEvent.change(from, { target: { value: start } });
    fireEvent.change(to, { target: { value: local(new Date(now.getTime() - 40 * DAY)) } });
    await user.click(within(modal).getByTestId('connection-modal-save'));
    expect(await within(panel).findByText('Deve ser igual ou posterior ao início da importação')).toBeInTheDocument();
    expect(api.find('PUT', '/whatsapp/1')).toHaveLength(0);

    const end = local(new Date(now.getTime() - DAY));
    fireEvent.change(to, { target: { value: end } });
    await choose(user, 'connection-modal-queueIdImportMessages', 5);
    await user.click(within(modal).getByTestId('connection-modal-importOldMessagesGroups'));
    await user.click(within(modal).getByTestId('connection-modal-closedTicketsPostImported'));
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    const body = api.find('PUT', '/whatsapp/1')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({
      enableImportMessage: true,
      importOldMessages: instant(start),
      importRecentMessages: instant(end),
      importOldMessagesGroups: true,
      closedTicketsPostImported: true,
      queueIdImportMessages: 5,
    });
    expect(body).not.toHaveProperty('statusImportMessages');
    expect(await screen.findByText('Conexão salva com sucesso!')).toBeInTheDocument();
  });

  it('sends the import off as null/false, whatever was typed before switching it off', async () => {
    const api = server(() => [], { 'POST /whatsapp': ({ body }) => connectionFixture(9, { ...(body as object) }) });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-add'));
    await user.click(await screen.findByTestId('connections-add-whatsapp'));
    const modal = await screen.findByTestId('connection-modal');
    await user.type(within(modal).getByTestId('connection-modal-name'), 'Atendimento');
    await user.click(within(modal).getByTestId('connection-modal-tab-import'));
    await user.click(within(modal).getByTestId('connection-modal-enableImportMessage'));
    fireEvent.change(within(modal).getByTestId('connection-modal-importOldMessages'), { target: { value: local(new Date(Date.now() - 3 * DAY)) } });
    await user.click(within(modal).getByTestId('connection-modal-importOldMessagesGroups'));
    await user.click(within(modal).getByTestId('connection-modal-enableImportMessage'));
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('POST', '/whatsapp')).toHaveLength(1));
    expect(api.find('POST', '/whatsapp')[0].body).toMatchObject({
      name: 'Atendimento',
      enableImportMessage: false,
      importOldMessages: null,
      importRecentMessages: null,
      importOldMessagesGroups: false,
      closedTicketsPostImported: false,
      queueIdImportMessages: null,
    });
  });

  it('warns before saving an import change on a CONNECTED connection, which unlinks the phone', async () => {
    const original = connectionFixture(1, { status: 'CONNECTED' });
    let list = [original];
    const api = server(() => list, {
      'GET /whatsapp/:id': () => original,
      // The server unlinks the phone: the connection waits for a new QR code.
      'PUT /whatsapp/:id': ({ body }) => {
        list = [{ ...original, ...(body as object), status: 'qrcode' }];
        return list[0];
      },
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const modal = await openImportTab(user, 1);
    await user.click(within(modal).getByTestId('connection-modal-enableImportMessage'));
    expect(within(modal).getByTestId('connection-modal-import-unlink-warning')).toHaveTextContent(
      'ao salvar uma mudança na importação, o aparelho será desconectado e será preciso ler um novo QR Code',
    );
    const now = Date.now();
    fireEvent.change(within(modal).getByTestId('connection-modal-importOldMessages'), { target: { value: local(new Date(now - 10 * DAY)) } });
    fireEvent.change(within(modal).getByTestId('connection-modal-importRecentMessages'), { target: { value: local(new Date(now - DAY)) } });
    await choose(user, 'connection-modal-queueIdImportMessages', 4);

    await user.click(within(modal).getByTestId('connection-modal-save'));
    const confirm = await screen.findByTestId('connection-modal-unlink-dialog');
    expect(confirm).toHaveTextContent('Desconectar o aparelho para importar?');
    expect(confirm).toHaveTextContent('será preciso ler um novo QR Code');
    expect(api.find('PUT', '/whatsapp/1')).toHaveLength(0);
    await user.click(within(confirm).getByTestId('connection-modal-unlink-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('connection-modal-unlink-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('connection-modal')).toBeInTheDocument();
    expect(api.find('PUT', '/whatsapp/1')).toHaveLength(0);

    await user.click(within(modal).getByTestId('connection-modal-save'));
    await user.click(await screen.findByTestId('connection-modal-unlink-dialog-confirm'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    expect(api.find('PUT', '/whatsapp/1')[0].body).toMatchObject({ enableImportMessage: true, queueIdImportMessages: 4 });
    await waitFor(() => expect(screen.queryByTestId('connection-modal')).not.toBeInTheDocument());
    expect(await screen.findByText('Conexão salva. Leia o novo QR Code para importar as mensagens.')).toBeInTheDocument();
    expect(await screen.findByTestId('connections-qr-1')).toBeInTheDocument();
  });

  it('saves a CONNECTED connection whose import is unchanged without asking, keeping the stored instants', async () => {
    const original = connectionFixture(1, {
      status: 'CONNECTED',
      enableImportMessage: true,
      importOldMessages: '2026-01-10T08:00:42.000Z',
      importRecentMessages: '2026-02-01T17:30:15.000Z',
      importOldMessagesGroups: true,
      closedTicketsPostImported: false,
      queueIdImportMessages: 4,
      statusImportMessages: null,
    });
    const api = server(() => [original], {
      'GET /whatsapp/:id': () => original,
      'PUT /whatsapp/:id': ({ body }) => ({ ...original, ...(body as object) }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const modal = await openImportTab(user, 1);
    expect(within(modal).getByTestId('connection-modal-enableImportMessage')).toBeChecked();
    expect(within(modal).getByTestId('connection-modal-importOldMessages')).toHaveValue(local(new Date('2026-01-10T08:00:42.000Z')));
    expect(within(modal).getByTestId('connection-modal-importOldMessagesGroups')).toBeChecked();
    expect(within(modal).getByTestId('connection-modal-queueIdImportMessages')).toHaveTextContent('Suporte');
    await user.click(within(modal).getByTestId('connection-modal-tab-general'));
    await user.type(within(modal).getByTestId('connection-modal-name'), ' novo');
    await user.click(within(modal).getByTestId('connection-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/whatsapp/1')).toHaveLength(1));
    expect(screen.queryByTestId('connection-modal-unlink-dialog')).not.toBeInTheDocument();
    expect(api.find('PUT', '/whatsapp/1')[0].body).toMatchObject({
      name: 'Conexão 1 novo',
      enableImportMessage: true,
      importOldMessages: '2026-01-10T08:00:42.000Z',
      importRecentMessages: '2026-02-01T17:30:15.000Z',
      importOldMessagesGroups: true,
      queueIdImportMessages: 4,
    });
    expect(await screen.findByText('Conexão salva com sucesso!')).toBeInTheDocument();
  });
});

describe('/connections import status', () => {
  it('shows a live progress card: Preparing at -1, then done/total with the date and percentage, gone on refresh', async () => {
    const api = server(() => [connectionFixture(1, { name: 'Vendas', enableImportMessage: true }), connectionFixture(2)]);
    renderApp('/connections');
    await screen.findByTestId('connections-row-1');
    expect(screen.queryByTestId('connections-import-progress')).not.toBeInTheDocument();

    progress(1, 1, -1, 0);
    const card = await screen.findByTestId('connections-import-card-1');
    expect(card).toHaveTextContent('Importando mensagens: Vendas');
    expect(within(card).getByTestId('connections-import-card-1-state')).toHaveTextContent('Preparando...');
    expect(within(card).getByRole('progressbar')).not.toHaveAttribute('aria-valuenow');
    // Another company's import is not heard, nor a `company-...` event of the same name.
    progress(1, 2, 5, 10, null, 2);
    act(() => lastSocket().serverEmit('company-1-importMessages', { action: 'update', seq: 9, status: { this: 5, all: 10, date: null, whatsappId: 2 } }));
    expect(screen.queryByTestId('connections-import-card-2')).not.toBeInTheDocument();

    progress(2, 1, 25, 200, '2025-06-01T12:30:00');
    await waitFor(() => expect(within(card).getByTestId('connections-import-card-1-state')).toHaveTextContent('25/200'));
    expect(within(card).getByTestId('connections-import-card-1-percent')).toHaveTextContent('12%');
    expect(within(card).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '12');
    expect(within(card).getByTestId('connections-import-card-1-date')).toHaveTextContent('Mensagens até 01/06/25 12:30');
    // A late report does not go back.
    progress(1, 1, -1, 0);
    expect(within(card).getByTestId('connections-import-card-1-state')).toHaveTextContent('25/200');

    const lists = api.find('GET', '/whatsapp').length;
    act(() => lastSocket().serverEmit('importMessages-1', { action: 'refresh', seq: 3, whatsappId: 1 }));
    await waitFor(() => expect(screen.queryByTestId('connections-import-card-1')).not.toBeInTheDocument());
    await waitFor(() => expect(api.find('GET', '/whatsapp').length).toBeGreaterThan(lists));
    // A report older than the end does not bring the card back.
    progress(2, 1, 30, 200);
    expect(screen.queryByTestId('connections-import-progress')).not.toBeInTheDocument();
  });

  it('marks a connection preparing while its last history chunk is under 35 seconds old and import is on', async () => {
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    server(() => [
      connectionFixture(1, { enableImportMessage: true, statusImportMessages: ago(5_000) }),
      connectionFixture(2, { enableImportMessage: true, statusImportMessages: ago(60_000) }),
      connectionFixture(3, { enableImportMessage: false, statusImportMessages: ago(5_000) }),
      connectionFixture(4, { enableImportMessage: true, statusImportMessages: null }),
      connectionFixture(5, { enableImportMessage: true, statusImportMessages: 'Running' }),
    ]);
    renderApp('/connections');
    expect(await screen.findByTestId('connections-import-preparing-1')).toHaveTextContent('Preparando importação');
    expect(screen.getByTestId('connections-import-running-5')).toHaveTextContent('Importando mensagens');
    for (const id of [2, 3, 4, 5]) expect(screen.queryByTestId(`connections-import-preparing-${id}`)).not.toBeInTheDocument();

    // A chunk that arrives live shows it, and it goes once 35 seconds have passed since the chunk.
    act(() =>
      lastSocket().serverEmit('company-1-whatsapp', {
        action: 'update',
        seq: 4,
        whatsapp: connectionFixture(4, { enableImportMessage: true, statusImportMessages: ago(33_500) }),
      }),
    );
    expect(await screen.findByTestId('connections-import-preparing-4')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('connections-import-preparing-4')).not.toBeInTheDocument(), { timeout: 5000 });
    expect(screen.getByTestId('connections-import-preparing-1')).toBeInTheDocument();
  });

  it('closes the imported tickets with the button: busy while it runs, then the number closed', async () => {
    let list = [connectionFixture(1, { enableImportMessage: true, statusImportMessages: 'renderButtonCloseTickets' }), connectionFixture(2)];
    const api = server(() => list, {
      'POST /closedimported/:id': () => {
        list = [connectionFixture(1, { enableImportMessage: true, statusImportMessages: null }), connectionFixture(2)];
        return { closed: 3 };
      },
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answer = api.fetch.getMockImplementation()!;
    api.fetch.mockImplementation(async (input, init) => {
      if (String(input).includes('/closedimported/')) await gate;
      return answer(input, init);
    });
    renderApp('/connections');
    const user = userEvent.setup();
    const button = await screen.findByTestId('connections-close-imported-1');
    expect(button).toHaveTextContent('Fechar atendimentos importados');
    expect(screen.queryByTestId('connections-close-imported-2')).not.toBeInTheDocument();
    await user.click(button);
    await waitFor(() => expect(button).toBeDisabled());
    expect(within(button).getByRole('progressbar')).toBeInTheDocument();
    release();
    expect(await screen.findByTestId('toast-success')).toHaveTextContent('Atendimentos importados fechados: 3');
    await waitFor(() => expect(screen.queryByTestId('connections-close-imported-1')).not.toBeInTheDocument());
    expect(api.find('POST', '/closedimported/1')).toHaveLength(1);
  });

  it('says why closing the imported tickets failed, translated', async () => {
    let status = 404;
    const api = server(() => [connectionFixture(1, { statusImportMessages: 'renderButtonCloseTickets' })], {
      'POST /closedimported/:id': () =>
        status === 404 ? reply(404, { error: 'ERR_NO_WAPP_FOUND', message: 'not found' }) : reply(403, { error: 'ERR_NO_PERMISSION', message: 'forbidden' }),
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-close-imported-1'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('Nenhuma conexão encontrada.');
    await waitFor(() => expect(screen.getByTestId('connections-close-imported-1')).toBeEnabled());
    status = 403;
    await user.click(screen.getByTestId('connections-close-imported-1'));
    await waitFor(() => expect(screen.getByTestId('toast-error')).toHaveTextContent('Você não tem permissão para acessar este recurso.'));
    expect(api.find('POST', '/closedimported/1')).toHaveLength(2);
  });

  it('is in English too', async () => {
    await setLanguage('en');
    server(() => [connectionFixture(1, { statusImportMessages: 'renderButtonCloseTickets' })]);
    renderApp('/connections');
    expect(await screen.findByTestId('connections-close-imported-1')).toHaveTextContent('Close imported tickets');
    progress(1, 1, -1, 0);
    expect(await screen.findByTestId('connections-import-card-1-state')).toHaveTextContent('Preparing...');
  });
});
