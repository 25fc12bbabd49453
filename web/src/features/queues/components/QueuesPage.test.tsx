import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_PERMISSIONS, ATTENDANT_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { defaultSchedules } from '../../../lib/business-hours/week';
import { QUEUE_COLORS } from '../api/queue-form';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const QUEUE_ADMIN = [...ADMIN_PERMISSIONS, 'menu:queues'];

const queue = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  name: `Fila ${id}`,
  color: `#0000${String(id).padStart(2, '0')}`,
  orderQueue: id,
  greetingMessage: `Olá da fila ${id}`,
  outOfHoursMessage: '',
  closeTicket: false,
  ativarRoteador: false,
  tempoRoteador: 0,
  integrationId: null,
  fileListId: null,
  schedules: [],
  chatbots: [],
  ...overrides,
});

const option = (id: number | null, name: string, overrides: Record<string, unknown> = {}) => ({
  id,
  name,
  greetingMessage: '',
  queueType: 'text',
  optQueueId: null,
  optUserId: null,
  optIntegrationId: null,
  optFileId: null,
  closeTicket: false,
  options: [],
  ...overrides,
});

function server(options: { scheduleType?: string; permissions?: string[]; routes?: Record<string, MockHandler> } = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions: options.permissions ?? QUEUE_ADMIN }),
    'GET /settings': () => [{ key: 'scheduleType', value: options.scheduleType ?? 'disabled' }],
    'GET /users/list': () => [
      { id: 1, name: 'Admin', profile: 'admin', online: true },
      { id: 7, name: 'Bia', profile: 'user', online: true },
    ],
    'GET /queue': () => [queue(1), queue(2)],
    ...options.routes,
  });
}

/** Opens a select by its test id and picks the option with `value`. */
async function choose(user: ReturnType<typeof userEvent.setup>, testId: string, value: string | number) {
  await user.click(screen.getByTestId(testId));
  await user.click(await screen.findByTestId(`${testId}-option-${value}`));
}

async function openNewQueue(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByTestId('queues-add'));
  return screen.findByTestId('queue-dialog');
}

/** Name, colour and the greeting (required: the company has other queues). */
async function fillBasics(user: ReturnType<typeof userEvent.setup>, dialog: HTMLElement, name = 'Comercial', color = '#ff8800') {
  await user.type(within(dialog).getByTestId('queue-dialog-name'), name);
  const colour = within(dialog).getByTestId('queue-dialog-color');
  await user.clear(colour);
  await user.type(colour, color);
  await user.type(within(dialog).getByTestId('queue-dialog-greetingMessage'), 'Bem-vindo!');
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/queues', () => {
  it('lists the queues with colour, order and greeting, 25 to a page', async () => {
    server({ routes: { 'GET /queue': () => Array.from({ length: 30 }, (_, i) => queue(i + 1)) } });
    renderApp('/queues');
    const row = await screen.findByTestId('queues-row-3');
    expect(row).toHaveTextContent('Fila 3');
    expect(row).toHaveTextContent('Olá da fila 3');
    expect(within(row).getByTestId('queues-color-3')).toHaveAttribute('aria-label', '#000003');
    expect(screen.getByTestId('queues-row-25')).toBeInTheDocument();
    expect(screen.queryByTestId('queues-row-26')).not.toBeInTheDocument();
    expect(screen.getByTestId('queues-pagination')).toHaveTextContent('1–25 de 30');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Próxima página' }));
    expect(await screen.findByTestId('queues-row-30')).toBeInTheDocument();
    expect(screen.queryByTestId('queues-row-1')).not.toBeInTheDocument();
    // The side menu shows the entry to an admin.
    expect(screen.getAllByText('Filas & Chatbot').length).toBeGreaterThan(0);
  });

  it('is hidden from plain users: no menu entry and the 403 page', async () => {
    server({ permissions: ATTENDANT_PERMISSIONS });
    renderApp('/queues');
    expect(await screen.findByTestId('forbidden-page')).toBeInTheDocument();
    expect(screen.queryByText('Filas & Chatbot')).not.toBeInTheDocument();
  });

  it('creates a queue with a two-level chatbot menu and sends the whole tree', async () => {
    const api = server({
      routes: { 'POST /queue': ({ body }) => reply(201, { id: 9, ...(body as object), schedules: defaultSchedules() }) },
    });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    await fillBasics(user, dialog);
    await user.type(within(dialog).getByTestId('queue-dialog-orderQueue'), '3');
    await user.clear(within(dialog).getByTestId('queue-dialog-greetingMessage'));
    await user.type(within(dialog).getByTestId('queue-dialog-greetingMessage'), 'Bem-vindo ao comercial');
    await user.click(within(dialog).getByTestId('queue-dialog-closeTicket'));
    await user.click(within(dialog).getByTestId('queue-dialog-ativarRoteador'));
    await choose(user, 'queue-dialog-tempoRoteador', 15);

    await user.click(within(dialog).getByTestId('chatbot-add-root'));
    await user.type(within(dialog).getByTestId('chatbot-1-name'), 'Vendas');
    await user.type(within(dialog).getByTestId('chatbot-1-message'), 'Escolha uma opção');
    await user.click(within(dialog).getByTestId('chatbot-add-1'));
    await user.type(within(dialog).getByTestId('chatbot-1-1-name'), 'Falar com a Bia');
    await choose(user, 'chatbot-1-1-type', 'attendent');
    await choose(user, 'chatbot-1-1-user', 7);
    await user.click(within(dialog).getByTestId('chatbot-add-1'));
    await user.type(within(dialog).getByTestId('chatbot-1-2-name'), 'Ir para a fila 2');
    await choose(user, 'chatbot-1-2-type', 'queue');
    await choose(user, 'chatbot-1-2-queue', 2);
    await user.click(within(dialog).getByTestId('chatbot-1-2-closeTicket'));
    await user.click(within(dialog).getByTestId('chatbot-add-root'));
    await user.type(within(dialog).getByTestId('chatbot-2-name'), 'Integração');
    await choose(user, 'chatbot-2-type', 'integration');
    await user.type(within(dialog).getByTestId('chatbot-2-integration'), '42');

    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('queue-dialog')).not.toBeInTheDocument());
    expect(api.find('POST', '/queue')).toHaveLength(1);
    expect(api.find('POST', '/queue')[0].body).toEqual({
      name: 'Comercial',
      color: '#ff8800',
      orderQueue: 3,
      greetingMessage: 'Bem-vindo ao comercial',
      outOfHoursMessage: '',
      closeTicket: true,
      ativarRoteador: true,
      tempoRoteador: 15,
      integrationId: null,
      fileListId: null,
      chatbots: [
        option(null, 'Vendas', {
          greetingMessage: 'Escolha uma opção',
          options: [
            option(null, 'Falar com a Bia', { queueType: 'attendent', optUserId: 7 }),
            option(null, 'Ir para a fila 2', { queueType: 'queue', optQueueId: 2, closeTicket: true }),
          ],
        }),
        option(null, 'Integração', { queueType: 'integration', optIntegrationId: 42 }),
      ],
    });
    expect(await screen.findByText('Fila salva com sucesso!')).toBeInTheDocument();
  });

  it('saves another queue without touching its colour: the dialog offers one no queue uses', async () => {
    const api = server({
      routes: {
        'GET /queue': () => [queue(1, { color: QUEUE_COLORS[0] }), queue(2, { color: QUEUE_COLORS[1].toUpperCase() })],
        'POST /queue': ({ body }) => reply(201, { id: 9, ...(body as object) }),
      },
    });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    await waitFor(() => expect(within(dialog).getByTestId('queue-dialog-color')).toHaveValue(QUEUE_COLORS[2]));
    await user.type(within(dialog).getByTestId('queue-dialog-name'), 'Financeiro');
    await user.type(within(dialog).getByTestId('queue-dialog-greetingMessage'), 'Olá!');
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(api.find('POST', '/queue')).toHaveLength(1));
    expect(api.find('POST', '/queue')[0].body).toMatchObject({ name: 'Financeiro', color: QUEUE_COLORS[2], greetingMessage: 'Olá!' });
  });

  it('shows the validation messages and sends nothing until they are fixed', async () => {
    const api = server({ routes: { 'POST /queue': ({ body }) => reply(201, { id: 9, ...(body as object) }) } });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    await user.type(within(dialog).getByTestId('queue-dialog-name'), 'A');
    const colour = within(dialog).getByTestId('queue-dialog-color');
    await user.clear(colour);
    await user.type(colour, '#a');
    await user.click(within(dialog).getByTestId('chatbot-add-root'));
    await user.type(within(dialog).getByTestId('chatbot-1-name'), 'Oi');
    await user.click(within(dialog).getByTestId('chatbot-add-1'));
    await user.click(within(dialog).getByTestId('queue-dialog-save'));

    expect(await within(dialog).findAllByText('Muito curto!')).toHaveLength(2); // name and colour
    expect(within(dialog).getByText('Nome muito curto! Use ao menos 4 caracteres.')).toBeInTheDocument();
    expect(within(dialog).getByText('Informe a mensagem para avançar ao próximo nível.')).toBeInTheDocument();
    expect(within(dialog).getByText('Obrigatório')).toBeInTheDocument(); // the empty sub-option's name
    // The company has other queues: the greeting is required before the server says so.
    expect(within(dialog).getByText('A mensagem de saudação é obrigatória quando há mais de uma fila.')).toBeInTheDocument();
    expect(api.find('POST', '/queue')).toHaveLength(0);

    await user.type(within(dialog).getByTestId('queue-dialog-name'), 'tendimento');
    await user.type(colour, 'bc');
    await user.type(within(dialog).getByTestId('chatbot-1-name'), ' tudo');
    await user.type(within(dialog).getByTestId('chatbot-1-message'), 'Escolha:');
    await user.type(within(dialog).getByTestId('queue-dialog-greetingMessage'), 'Olá!');
    await user.click(within(dialog).getByTestId('chatbot-1-1-remove'));
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(api.find('POST', '/queue')).toHaveLength(1));
    expect(api.find('POST', '/queue')[0].body).toMatchObject({ name: 'Atendimento', color: '#abc', chatbots: [option(null, 'Oi tudo', { greetingMessage: 'Escolha:' })] });
  });

  it('has no hours tab unless hours are kept per queue, and then keeps the stored rows', async () => {
    const api = server({ scheduleType: 'company', routes: { 'POST /queue': ({ body }) => reply(201, { id: 9, ...(body as object) }) } });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    expect(within(dialog).getByTestId('queue-dialog-tab-data')).toHaveTextContent('Dados da fila');
    expect(within(dialog).queryByTestId('queue-dialog-tab-hours')).not.toBeInTheDocument();
    expect(within(dialog).queryByTestId('queue-dialog-outOfHoursMessage')).not.toBeInTheDocument();
    await fillBasics(user, dialog);
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(api.find('POST', '/queue')).toHaveLength(1));
    expect(api.find('POST', '/queue')[0].body).not.toHaveProperty('schedules');
  });

  it('with hours per queue: the hours tab requires the out-of-hours message and sends the week', async () => {
    const api = server({ scheduleType: 'queue', routes: { 'POST /queue': ({ body }) => reply(201, { id: 9, ...(body as object) }) } });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    expect(await within(dialog).findByTestId('queue-dialog-tab-hours')).toHaveTextContent('Horários');
    await fillBasics(user, dialog);
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    // The only problem is on the hours tab: it is shown.
    const message = await within(dialog).findByText('Informe a mensagem de fora de expediente.');
    await waitFor(() => expect(message).toBeVisible());
    expect(within(dialog).getByTestId('queue-dialog-schedule-monday-startTimeA')).toHaveValue('08:00');
    expect(within(dialog).getByTestId('queue-dialog-schedule-sunday-endTimeB')).toHaveValue('18:00');

    await user.type(within(dialog).getByTestId('queue-dialog-outOfHoursMessage'), 'Voltamos amanhã');
    fireEvent.change(within(dialog).getByTestId('queue-dialog-schedule-monday-startTimeA'), { target: { value: '09:00' } });
    fireEvent.change(within(dialog).getByTestId('queue-dialog-schedule-sunday-startTimeB'), { target: { value: '' } });
    expect(await within(dialog).findByText('Informe início e fim.')).toBeInTheDocument();
    fireEvent.change(within(dialog).getByTestId('queue-dialog-schedule-sunday-endTimeB'), { target: { value: '' } });
    await waitFor(() => expect(within(dialog).queryByText('Informe início e fim.')).not.toBeInTheDocument());

    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(api.find('POST', '/queue')).toHaveLength(1));
    const body = api.find('POST', '/queue')[0].body as { outOfHoursMessage: string; schedules: unknown[] };
    expect(body.outOfHoursMessage).toBe('Voltamos amanhã');
    const expected = defaultSchedules();
    expected[0].startTimeA = '09:00';
    expected[6].startTimeB = '';
    expected[6].endTimeB = '';
    expect(body.schedules).toEqual(expected);
  });

  it('edits a queue: option ids are kept, options reorder, and deletes after confirmation', async () => {
    let queues = [
      queue(1, {
        chatbots: [option(11, 'Primeira', { greetingMessage: 'Menu', options: [option(12, 'Sub-opção', { queueType: 'queue', optQueueId: 2 })] }), option(13, 'Segunda')],
      }),
      queue(2),
    ];
    const api = server({
      routes: {
        'GET /queue': () => queues,
        'GET /queue/:id': ({ path }) => queues.find((q) => `/queue/${q.id}` === path),
        'PUT /queue/:id': ({ body }) => ({ id: 1, ...(body as object) }),
        'DELETE /queue/:id': ({ path }) => {
          queues = queues.filter((q) => `/queue/${q.id}` !== path);
          return undefined;
        },
      },
    });
    renderApp('/queues');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('queues-edit-1'));
    const dialog = await screen.findByTestId('queue-dialog');
    await waitFor(() => expect(within(dialog).getByTestId('queue-dialog-name')).toHaveValue('Fila 1'));
    expect(within(dialog).getByTestId('chatbot-1-1-name')).toHaveValue('Sub-opção');
    // A queue's own name is not offered as a target.
    await user.click(within(dialog).getByTestId('chatbot-1-1-queue'));
    expect(await screen.findByTestId('chatbot-1-1-queue-option-2')).toBeInTheDocument();
    expect(screen.queryByTestId('chatbot-1-1-queue-option-1')).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    await user.click(within(dialog).getByTestId('chatbot-2-up'));
    expect(within(dialog).getByTestId('chatbot-1-name')).toHaveValue('Segunda');
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    await waitFor(() => expect(api.find('PUT', '/queue/1')).toHaveLength(1));
    const body = api.find('PUT', '/queue/1')[0].body as { chatbots: { id: number; name: string; options: { id: number }[] }[] };
    expect(body.chatbots.map((o) => [o.id, o.name])).toEqual([
      [13, 'Segunda'],
      [11, 'Primeira'],
    ]);
    expect(body.chatbots[1].options).toEqual([option(12, 'Sub-opção', { queueType: 'queue', optQueueId: 2 })]);

    await user.click(screen.getByTestId('queues-delete-2'));
    expect(await screen.findByText('Excluir a fila Fila 2?')).toBeInTheDocument();
    await user.click(screen.getByTestId('queues-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('queues-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/queue/2')).toHaveLength(1);
    expect(await screen.findByText('Fila excluída com sucesso!')).toBeInTheDocument();
  });

  it('follows company-{id}-queue: create, update and delete change the list', async () => {
    server();
    renderApp('/queues');
    await screen.findByTestId('queues-row-2');
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-queue', { action: 'create', queue: queue(5, { name: 'Financeiro' }) }));
    expect(await screen.findByTestId('queues-row-5')).toHaveTextContent('Financeiro');
    act(() => socket.serverEmit('company-1-queue', { action: 'update', queue: queue(1, { name: 'Suporte' }) }));
    await waitFor(() => expect(screen.getByTestId('queues-row-1')).toHaveTextContent('Suporte'));
    act(() => socket.serverEmit('company-1-queue', { action: 'delete', queueId: 2 }));
    await waitFor(() => expect(screen.queryByTestId('queues-row-2')).not.toBeInTheDocument());
    // Another company's events are not heard.
    act(() => socket.serverEmit('company-2-queue', { action: 'create', queue: queue(8) }));
    expect(screen.queryByTestId('queues-row-8')).not.toBeInTheDocument();
  });

  it('shows ERR_QUEUE_COLOR_ALREADY_EXISTS translated, on the colour field, and keeps the dialog open', async () => {
    await setLanguage('en');
    server({ routes: { 'POST /queue': () => reply(409, { error: 'ERR_QUEUE_COLOR_ALREADY_EXISTS', message: 'colour taken' }) } });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    expect(within(dialog).getByTestId('queue-dialog-tab-data')).toHaveTextContent('Queue data');
    await fillBasics(user, dialog, 'Sales', '#000001');
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('This colour is already in use, pick another one.');
    expect(within(dialog).getByText('This colour is already in use, pick another one.')).toBeInTheDocument();
    expect(within(dialog).getByTestId('queue-dialog-color')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByTestId('queue-dialog')).toBeInTheDocument();
  });

  it('puts server field errors on nested option fields', async () => {
    server({
      routes: {
        'POST /queue': () => reply(422, { error: 'ERR_VALIDATION', message: 'invalid', fields: [{ field: 'chatbots[0].options[0].name', code: 'TOO_LONG' }] }),
      },
    });
    renderApp('/queues');
    const user = userEvent.setup();
    const dialog = await openNewQueue(user);
    await fillBasics(user, dialog);
    await user.click(within(dialog).getByTestId('chatbot-add-root'));
    await user.type(within(dialog).getByTestId('chatbot-1-name'), 'Menu principal');
    await user.type(within(dialog).getByTestId('chatbot-1-message'), 'Escolha');
    await user.click(within(dialog).getByTestId('chatbot-add-1'));
    await user.type(within(dialog).getByTestId('chatbot-1-1-name'), 'Uma opção');
    await user.click(within(dialog).getByTestId('queue-dialog-save'));
    expect(await within(dialog).findByText('Muito extenso!')).toBeInTheDocument();
    expect(within(dialog).getByTestId('chatbot-1-1-name')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('/settings company hours', () => {
  it('shows the hours tab only when hours are kept per company, and saves the week', async () => {
    const api = server({
      scheduleType: 'company',
      routes: {
        'GET /companies/:id/schedules': () => ({ schedules: [{ ...defaultSchedules()[5], startTimeA: '10:00' }] }),
        'PUT /companies/:id/schedules': ({ body }) => body,
      },
    });
    renderApp('/settings');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('settings-tab-schedules'));
    const editor = await screen.findByTestId('company-schedules');
    expect(within(editor).getByTestId('company-schedule-saturday-startTimeA')).toHaveValue('10:00');
    expect(within(editor).getByTestId('company-schedule-monday-startTimeA')).toHaveValue('08:00');
    fireEvent.change(within(editor).getByTestId('company-schedule-friday-endTimeB'), { target: { value: '12:00' } });
    expect(await within(editor).findByText('O fim deve ser depois do início.')).toBeInTheDocument();
    expect(within(editor).getByTestId('company-schedules-save')).toBeDisabled();
    fireEvent.change(within(editor).getByTestId('company-schedule-friday-endTimeB'), { target: { value: '17:00' } });
    await user.click(within(editor).getByTestId('company-schedules-save'));
    await waitFor(() => expect(api.find('PUT', '/companies/1/schedules')).toHaveLength(1));
    const expected = defaultSchedules();
    expected[5].startTimeA = '10:00';
    expected[4].endTimeB = '17:00';
    expect(api.find('PUT', '/companies/1/schedules')[0].body).toEqual({ schedules: expected });
    expect(await screen.findByText('Horários atualizados com sucesso.')).toBeInTheDocument();
  });

  it('has no hours tab for another schedule type', async () => {
    server({ scheduleType: 'queue' });
    renderApp('/settings');
    await screen.findByTestId('settings-tab-options');
    await screen.findByTestId('setting-scheduleType');
    expect(screen.queryByTestId('settings-tab-schedules')).not.toBeInTheDocument();
  });
});
