import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { lastSocket } from '../../../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function scheduleFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    body: `Lembrete ${id}`,
    contactId: 100 + id,
    contact: { id: 100 + id, name: `Contato ${id}` },
    sendAt: '2026-12-01T12:00:00Z',
    nextSendAt: '2026-12-01T12:00:00Z',
    sentAt: null,
    status: 'PENDENTE',
    openTicket: 'disabled',
    statusTicket: 'closed',
    assinar: false,
    intervalo: 1,
    valorIntervalo: 1,
    enviarQuantasVezes: 1,
    tipoDias: 4,
    ...overrides,
  };
}

function server(routes: Record<string, MockHandler>, permissions = [...ADMIN_PERMISSIONS, 'menu:schedules']) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions }),
    'GET /whatsapp': () => [],
    'GET /users/list': () => [{ id: 1, name: 'Admin' }],
    'GET /queue': () => [],
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/schedules', () => {
  it('lists schedules with contact, status and actions; deletes after confirmation', async () => {
    const mock = server({
      'GET /schedules': () => ({ schedules: [scheduleFixture(1), scheduleFixture(2, { status: 'ENVIADA', nextSendAt: null, sentAt: '2026-11-20T12:00:00Z' })], hasMore: false, count: 2 }),
      'DELETE /schedules/:id': () => undefined,
    });
    renderApp('/schedules');
    const first = await screen.findByTestId('schedules-row-1');
    expect(within(first).getByText('Contato 1')).toBeInTheDocument();
    expect(within(first).getByText('Pendente')).toBeInTheDocument();
    const sent = screen.getByTestId('schedules-row-2');
    expect(within(sent).getByText('Enviada')).toBeInTheDocument();
    // Only a schedule not sent yet can be edited.
    expect(screen.getByTestId('schedules-edit-1')).toBeInTheDocument();
    expect(screen.queryByTestId('schedules-edit-2')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByTestId('schedules-delete-1'));
    const confirm = await screen.findByTestId('schedules-delete-dialog');
    await user.click(within(confirm).getByRole('button', { name: 'Excluir' }));
    expect(await screen.findByText('Agendamento excluído com sucesso!')).toBeInTheDocument();
    await waitFor(() => expect(mock.find('DELETE', '/schedules/1')).toHaveLength(1));
  });

  it('opens the create dialog for ?contactId= and schedules for that contact', async () => {
    const mock = server({
      'GET /schedules': () => ({ schedules: [], hasMore: false, count: 0 }),
      'POST /schedules': ({ body }) => scheduleFixture(9, body as Record<string, unknown>),
    });
    renderApp('/schedules?contactId=107');
    const dialog = await screen.findByTestId('schedule-dialog');
    expect(within(dialog).queryByTestId('schedule-contact')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(within(dialog).getByTestId('schedule-body'), 'Olá, tudo bem?');
    await user.click(within(dialog).getByTestId('schedule-save'));
    await waitFor(() => expect(mock.find('POST', '/schedules')).toHaveLength(1));
    expect(mock.find('POST', '/schedules')[0].body).toMatchObject({ contactId: 107, body: 'Olá, tudo bem?', whatsappId: null });
  });

  it('asks for a contact when added from the page', async () => {
    const mock = server({ 'GET /schedules': () => ({ schedules: [], hasMore: false, count: 0 }) });
    renderApp('/schedules');
    expect(await screen.findByTestId('schedules-empty')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByTestId('schedules-add'));
    const dialog = await screen.findByTestId('schedule-dialog');
    await user.type(within(dialog).getByTestId('schedule-body'), 'Olá, tudo bem?');
    await user.click(within(dialog).getByTestId('schedule-save'));
    expect(await within(dialog).findByText('Obrigatório')).toBeInTheDocument();
    expect(mock.find('POST', '/schedules')).toHaveLength(0);
  });

  it('refreshes on company-{id}-schedule events', async () => {
    let calls = 0;
    server({
      'GET /schedules': () => {
        calls += 1;
        return { schedules: calls === 1 ? [] : [scheduleFixture(3)], hasMore: false, count: calls === 1 ? 0 : 1 };
      },
    });
    renderApp('/schedules');
    expect(await screen.findByTestId('schedules-empty')).toBeInTheDocument();
    await waitFor(() => expect(lastSocket()).toBeDefined());
    act(() => lastSocket().serverEmit('company-1-schedule', { action: 'create', schedule: scheduleFixture(3) }));
    expect(await screen.findByTestId('schedules-row-3')).toBeInTheDocument();
  });

  it('is refused without the plan flag', async () => {
    server({}, [...ADMIN_PERMISSIONS]);
    renderApp('/schedules');
    expect(await screen.findByText('Oops! Acesso Negado!')).toBeInTheDocument();
  });
});
