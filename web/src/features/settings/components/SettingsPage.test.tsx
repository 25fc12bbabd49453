import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const SETTINGS = [
  { key: 'userRating', value: 'disabled' },
  { key: 'scheduleType', value: 'queue' },
  { key: 'enableLGPD', value: 'disabled' },
  { key: 'transferMessage', value: 'Transferido para {{queue}}' },
];

function server(permissions: string[], routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions }),
    'GET /settings': () => SETTINGS,
    'PUT /settings/:key': ({ path, body }) => ({ key: path.split('/').pop(), value: (body as { value: string }).value }),
    ...routes,
  });
}

async function chooseOption(testId: string, value: string) {
  const user = userEvent.setup();
  await user.click(await screen.findByTestId(testId));
  await user.click(await screen.findByTestId(`${testId}-option-${value}`));
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/settings Options tab', () => {
  it('shows the values and saves a select with PUT /settings/{key}', async () => {
    const api = server(ADMIN_PERMISSIONS);
    renderApp('/settings');
    expect(await screen.findByTestId('settings-tab-options')).toHaveTextContent('Opções');
    expect(await screen.findByTestId('setting-scheduleType')).toHaveTextContent('Fila');
    await chooseOption('setting-userRating', 'enabled');
    await waitFor(() => expect(api.find('PUT', '/settings/userRating')).toHaveLength(1));
    expect(api.find('PUT', '/settings/userRating')[0].body).toEqual({ value: 'enabled' });
    expect(await screen.findByText('Operação atualizada com sucesso.')).toBeInTheDocument();
    expect(screen.getByTestId('setting-userRating')).toHaveTextContent('Habilitado');
  });

  it('saves a text setting on blur only when it changed', async () => {
    const api = server(ADMIN_PERMISSIONS);
    renderApp('/settings');
    const field = await screen.findByTestId('setting-transferMessage');
    expect(field).toHaveValue('Transferido para {{queue}}');
    fireEvent.blur(field);
    expect(api.find('PUT', '/settings/transferMessage')).toHaveLength(0);
    fireEvent.change(field, { target: { value: 'Você foi transferido' } });
    fireEvent.blur(field);
    await waitFor(() => expect(api.find('PUT', '/settings/transferMessage')[0]?.body).toEqual({ value: 'Você foi transferido' }));
  });

  it('searches and saves the company time zone, America/Sao_Paulo until one is chosen', async () => {
    const api = server(ADMIN_PERMISSIONS);
    renderApp('/settings');
    const field = await screen.findByTestId('setting-timezone');
    expect(screen.getByLabelText('Fuso horário')).toBe(field);
    expect(field).toHaveValue('America/Sao Paulo');
    const user = userEvent.setup();
    await user.clear(field);
    await user.type(field, 'istanb');
    await user.click(await screen.findByTestId('setting-timezone-option-Europe/Istanbul'));
    await waitFor(() => expect(api.find('PUT', '/settings/timezone')).toHaveLength(1));
    expect(api.find('PUT', '/settings/timezone')[0].body).toEqual({ value: 'Europe/Istanbul' });
    await waitFor(() => expect(screen.getByTestId('setting-timezone')).toHaveValue('Europe/Istanbul'));
  });

  it('restores the value and shows the translated error when saving fails', async () => {
    server(ADMIN_PERMISSIONS, {
      'PUT /settings/:key': () => reply(422, { error: 'ERR_SETTING_MESSAGE_REQUIRED', message: 'message required' }),
    });
    renderApp('/settings');
    await chooseOption('setting-userRating', 'enabled');
    expect(await screen.findByText('Preencha a mensagem correspondente antes de habilitar esta opção.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('setting-userRating')).toHaveTextContent('Desabilitado'));
  });

  it('shows the LGPD fields once LGPD is enabled, and applies live updates', async () => {
    server(ADMIN_PERMISSIONS);
    renderApp('/settings');
    await screen.findByTestId('setting-enableLGPD');
    expect(screen.queryByTestId('setting-lgpdLink')).not.toBeInTheDocument();
    lastSocket().serverEmit('company-1-settings', { action: 'update', setting: { key: 'enableLGPD', value: 'enabled' } });
    expect(await screen.findByTestId('setting-lgpdLink')).toBeInTheDocument();
  });

  it('shows the platform block only with settings:platform', async () => {
    server(ADMIN_PERMISSIONS);
    renderApp('/settings');
    const platform = await screen.findByTestId('settings-section-platform');
    expect(within(platform).getByTestId('setting-allowSignup')).toBeInTheDocument();
    expect(within(platform).getByTestId('setting-keymp')).toHaveAttribute('type', 'password');
  });

  it('hides the platform block from a company admin', async () => {
    server(ADMIN_PERMISSIONS.filter((p) => p !== 'settings:platform'));
    renderApp('/settings');
    await screen.findByTestId('settings-section-general');
    expect(screen.queryByTestId('settings-section-platform')).not.toBeInTheDocument();
  });

  it('shows the 403 page without page:settings', async () => {
    server(['menu:tickets']);
    renderApp('/settings');
    expect(await screen.findByTestId('forbidden-page')).toBeInTheDocument();
  });
});
