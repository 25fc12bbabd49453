import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../lib/i18n';
import { renderApp } from '../test/render';
import { mockServer, reply, type MockHandler } from '../test/server';
import { ADMIN_PERMISSIONS } from '../test/fixtures';
import { inboxAuth, messageFixture, QUEUES, ticketFixture } from '../test/inbox-fixtures';
import { defaultSendAt, localInputValue, mediaAllowed, scheduleFormSchema as schemaOf, scheduleFormDefaults } from '../lib/schedules/form';
import { currentRules } from '../lib/wasm/rules';

vi.mock('socket.io-client', async () => ({ io: (await import('../test/socket')).ioMock }));

function viewServer(routes: Record<string, MockHandler> = {}, permissions = [...ADMIN_PERMISSIONS, 'menu:schedules']) {
  localStorage.setItem('token', 'stored');
  const ticket = ticketFixture(7);
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth({ permissions }),
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

beforeEach(async () => {
  vi.spyOn(document, 'hasFocus').mockImplementation(() => true);
  await setLanguage('pt');
});
afterEach(() => vi.restoreAllMocks());

const limits = currentRules()!.scheduleLimits();
const scheduleFormSchema = schemaOf(limits);

describe('schedule form rules', () => {
  it('defaults to one hour from now, every 1 day, once, on any day', () => {
    const now = new Date(2026, 10, 24, 22, 30);
    expect(defaultSendAt(now)).toBe('2026-11-24T23:30');
    expect(scheduleFormDefaults(null, now)).toMatchObject({ sendAt: '2026-11-24T23:30', intervalo: 1, valorIntervalo: 1, enviarQuantasVezes: 1, tipoDias: 4, openTicket: false, assinar: false });
  });

  it('refuses a short body, a past time and other attachments than png/jpg', () => {
    const base = scheduleFormDefaults(null);
    const short = scheduleFormSchema.safeParse({ ...base, body: 'oi' });
    expect(short.success).toBe(false);
    expect(short.error?.issues.map((i) => i.message)).toEqual(['schedules.tooShort']);
    const past = scheduleFormSchema.safeParse({ ...base, body: 'Olá Maria', sendAt: localInputValue(new Date(Date.now() - 3_600_000)) });
    expect(past.error?.issues.map((i) => i.message)).toEqual(['schedules.inThePast']);
    expect(scheduleFormSchema.safeParse({ ...base, body: 'Olá Maria' }).success).toBe(true);
    expect([mediaAllowed(limits, 'a.png'), mediaAllowed(limits, 'b.JPEG'), mediaAllowed(limits, 'c.gif'), mediaAllowed(limits, 'png')]).toEqual([true, true, false, false]);
  });
});

describe('ticket header: schedule message', () => {
  it('validates, then schedules for the ticket contact on its connection', async () => {
    const server = viewServer({
      'POST /schedules': ({ body }) => ({ id: 5, ...(body as object), contact: { id: 107, name: 'Contato 7' }, status: 'PENDENTE' }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-schedule'));
    const dialog = await screen.findByTestId('schedule-dialog');
    const sendAt = within(dialog).getByTestId('schedule-send-at') as HTMLInputElement;
    const inAnHour = Date.now() + 3_600_000;
    expect([localInputValue(new Date(inAnHour)), localInputValue(new Date(inAnHour - 60_000))]).toContain(sendAt.value);

    await user.type(within(dialog).getByTestId('schedule-body'), 'oi');
    await user.click(within(dialog).getByTestId('schedule-save'));
    expect(await within(dialog).findByText('Mensagem muito curta')).toBeInTheDocument();
    expect(server.find('POST', '/schedules')).toHaveLength(0);

    await user.type(within(dialog).getByTestId('schedule-body'), ' Maria, tudo bem?');
    await user.click(within(dialog).getByTestId('schedule-save'));
    expect(await screen.findByText('Agendamento salvo com sucesso!')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('schedule-dialog')).not.toBeInTheDocument());
    const [posted] = server.find('POST', '/schedules');
    expect(posted.body).toMatchObject({
      body: 'oi Maria, tudo bem?',
      contactId: 107,
      whatsappId: 3,
      intervalo: 1,
      valorIntervalo: 1,
      enviarQuantasVezes: 1,
      tipoDias: 4,
      openTicket: 'disabled',
      statusTicket: 'closed',
      assinar: false,
    });
  });

  it('maps the server field errors onto the form', async () => {
    viewServer({
      'POST /schedules': () => reply(422, { error: 'ERR_VALIDATION', message: 'invalid', fields: [{ field: 'sendAt', code: 'OUT_OF_RANGE' }] }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('ticket-header-schedule'));
    const dialog = await screen.findByTestId('schedule-dialog');
    await user.type(within(dialog).getByTestId('schedule-body'), 'Olá Maria');
    await user.click(within(dialog).getByTestId('schedule-save'));
    await waitFor(() => expect(within(dialog).getByTestId('schedule-send-at')).toHaveAttribute('aria-invalid', 'true'));
  });

  it('is not offered when the plan has no schedules', async () => {
    viewServer({}, [...ADMIN_PERMISSIONS]);
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    expect(screen.queryByTestId('ticket-header-schedule')).not.toBeInTheDocument();
  });
});
