import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../lib/i18n';
import { ATTENDANT_PERMISSIONS, authFixture, userFixture } from '../test/fixtures';
import { renderApp } from '../test/render';
import { mockServer, reply } from '../test/server';
import { lastSocket } from '../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../test/socket')).ioMock }));

const publicSettings = (values: Record<string, string> = {}) => ({
  'GET /public-settings/:key': ({ path }: { path: string }) => {
    const key = path.split('/').pop()!;
    return key in values ? { key, value: values[key] } : reply(404, { error: 'ERR_NOT_FOUND', message: 'no' });
  },
});

const usersPage = (users = [userFixture()]) => ({ 'GET /users/': () => ({ users, count: users.length, hasMore: false }) });

async function signIn(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByTestId('login-email'), email);
  await user.type(screen.getByTestId('login-password'), password);
  await user.click(screen.getByTestId('login-submit'));
  return user;
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('routing and session', () => {
  it('sends an anonymous visitor of a private page to /login', async () => {
    mockServer({ ...publicSettings() });
    renderApp('/users');
    expect(await screen.findByTestId('login-page')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/login');
    expect(screen.queryByTestId('link-signup')).not.toBeInTheDocument();
  });

  it('shows the signup link only when allowSignup is enabled', async () => {
    mockServer({ ...publicSettings({ allowSignup: 'enabled' }) });
    renderApp('/login');
    expect(await screen.findByTestId('link-signup')).toBeInTheDocument();
  });

  it('signs an admin in, lands on /tickets and shows tickets, users and settings in the menu', async () => {
    const server = mockServer({ ...publicSettings(), 'POST /auth/login': () => authFixture(), ...usersPage() });
    renderApp('/login');
    await signIn('Admin@Chatflow.test', 'Str0ng!Pass');
    expect(await screen.findByTestId('tickets-page')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/tickets');
    expect(server.find('POST', '/auth/login')[0].body).toEqual({ email: 'admin@chatflow.test', password: 'Str0ng!Pass' });
    const menu = screen.getByTestId('side-menu');
    expect(within(menu).getByTestId('menu-users')).toBeInTheDocument();
    expect(within(menu).getByTestId('menu-settings')).toBeInTheDocument();
    expect(within(menu).getByTestId('menu-tickets')).toBeInTheDocument();
    expect(screen.getByTestId('topbar-greeting')).toHaveTextContent('Olá Admin, seja bem-vindo(a) à Empresa 1');
    expect(screen.getByTestId('app-version')).toHaveTextContent('3.5.0');
    // remember-me unchecked: the token lives in sessionStorage
    expect(sessionStorage.getItem('token')).toBe(authFixture().token);
    expect(localStorage.getItem('token')).toBeNull();
    // the socket connects with the token, joins notifications and reports the user online
    const socket = lastSocket();
    expect(socket.options).toMatchObject({ reconnectionDelay: 1000, reconnectionAttempts: Infinity });
    socket.serverEmit('connect');
    expect(socket.emitted.map((e) => e.event)).toEqual(expect.arrayContaining(['joinNotification', 'userStatus']));
  });

  it('asks before signing in with a weak password', async () => {
    const server = mockServer({ ...publicSettings(), 'POST /auth/login': () => authFixture(), ...usersPage() });
    renderApp('/login');
    const user = await signIn('admin@chatflow.test', '123456');
    expect(await screen.findByTestId('weak-password-dialog')).toBeInTheDocument();
    expect(server.find('POST', '/auth/login')).toHaveLength(0);
    await user.click(screen.getByTestId('weak-password-change'));
    expect(await screen.findByTestId('change-password-hint')).toBeInTheDocument();
    await user.click(screen.getByTestId('login-submit'));
    await user.click(await screen.findByTestId('weak-password-proceed'));
    expect(await screen.findByTestId('tickets-page')).toBeInTheDocument();
    expect(server.find('POST', '/auth/login')).toHaveLength(1);
  });

  it('shows the translated error of a failed sign-in', async () => {
    mockServer({ ...publicSettings(), 'POST /auth/login': () => reply(401, { error: 'ERR_INVALID_CREDENTIALS', message: 'invalid' }) });
    renderApp('/login');
    await signIn('admin@chatflow.test', 'Str0ng!Pass');
    expect(await screen.findByText('Erro de autenticação. Por favor, tente novamente.')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/login');
  });

  it('sends an expired subscription to /financeiro-aberto with the date', async () => {
    mockServer({
      ...publicSettings(),
      'POST /auth/login': () => authFixture({ subscription: { status: 'expired', dueDate: '2026-03-01', daysLeft: -3 } }),
    });
    renderApp('/login');
    await signIn('admin@chatflow.test', 'Str0ng!Pass');
    expect(await screen.findByTestId('subscription-expired-page')).toBeInTheDocument();
    expect(screen.getByTestId('toast-error')).toHaveTextContent('01/03/2026');
  });

  it('a 402 from any call leads to /financeiro-aberto while staying signed in', async () => {
    localStorage.setItem('token', 'stored');
    mockServer({
      ...publicSettings(),
      'GET /auth/me': () => authFixture(),
      'GET /users/': () => reply(402, { error: 'ERR_SUBSCRIPTION_EXPIRED', message: 'expired' }),
    });
    renderApp('/users');
    expect(await screen.findByTestId('subscription-expired-page')).toBeInTheDocument();
    expect(localStorage.getItem('token')).toBe('stored');
  });

  it('warns when the subscription is about to expire, singular for one day', async () => {
    mockServer({
      ...publicSettings(),
      'POST /auth/login': () => authFixture({ subscription: { status: 'warning', dueDate: '2026-03-01', daysLeft: 1 } }),
      ...usersPage(),
    });
    renderApp('/login');
    await signIn('admin@chatflow.test', 'Str0ng!Pass');
    expect(await screen.findByTestId('toast-warning')).toHaveTextContent('Sua assinatura vence em 1 dia.');
  });

  it('restores the session from a stored token; an attendant sees no admin menu and a 403 on /users', async () => {
    localStorage.setItem('token', 'stored');
    const me = authFixture({ user: { id: 7, name: 'Ana', profile: 'user', super: false }, permissions: ATTENDANT_PERMISSIONS });
    mockServer({ ...publicSettings(), 'GET /auth/me': () => ({ user: me.user, permissions: me.permissions, subscription: me.subscription }) });
    renderApp('/users');
    expect(await screen.findByTestId('forbidden-page')).toBeInTheDocument();
    expect(screen.getByTestId('forbidden-title')).toHaveTextContent('Oops! Acesso Negado!');
    const menu = screen.getByTestId('side-menu');
    expect(within(menu).queryByTestId('menu-users')).not.toBeInTheDocument();
    expect(within(menu).queryByTestId('menu-settings')).not.toBeInTheDocument();
  });

  it('shows the home view at "/" for a user without built pages', async () => {
    localStorage.setItem('token', 'stored');
    const me = authFixture({ user: { name: 'Ana', profile: 'user' }, permissions: [] });
    mockServer({ ...publicSettings(), 'GET /auth/me': () => me });
    renderApp('/');
    expect(await screen.findByTestId('home-page')).toHaveTextContent('Olá, Ana!');
  });

  it('refreshes an expired access token on restore and keeps the session', async () => {
    localStorage.setItem('token', 'old');
    const fresh = authFixture();
    mockServer({
      ...publicSettings(),
      'GET /auth/me': ({ headers }) =>
        headers.Authorization === `Bearer ${fresh.token}` ? fresh : reply(403, { error: 'ERR_TOKEN_EXPIRED', message: 'expired' }),
      'POST /auth/refresh_token': () => fresh,
      ...usersPage(),
    });
    renderApp('/users');
    expect(await screen.findByTestId('users-page')).toBeInTheDocument();
    expect(localStorage.getItem('token')).toBe(fresh.token);
  });

  it('a signed-in user on a public page goes to "/"', async () => {
    localStorage.setItem('token', 'stored');
    mockServer({ ...publicSettings(), 'GET /auth/me': () => authFixture(), ...usersPage() });
    renderApp('/login');
    expect(await screen.findByTestId('tickets-page')).toBeInTheDocument();
  });

  it('signs out: DELETE /auth/logout then /login', async () => {
    localStorage.setItem('token', 'stored');
    const server = mockServer({ ...publicSettings(), 'GET /auth/me': () => authFixture(), ...usersPage(), 'DELETE /auth/logout': () => undefined });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('user-menu-button'));
    await user.click(await screen.findByTestId('menu-logout'));
    expect(await screen.findByTestId('login-page')).toBeInTheDocument();
    expect(server.find('DELETE', '/auth/logout')).toHaveLength(1);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('signs out when the same user signs in on another computer', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload, pathname: '/users' });
    localStorage.setItem('token', 'stored');
    mockServer({ ...publicSettings(), 'GET /auth/me': () => ({ ...authFixture(), sessionId: 'mine' }), ...usersPage() });
    renderApp('/users');
    await screen.findByTestId('users-page');
    const socket = lastSocket();
    socket.serverEmit('company-1-auth', { action: 'update', user: { id: 1 }, sessionId: 'mine' });
    socket.serverEmit('company-1-auth', { action: 'update', user: { id: 2 }, sessionId: 'other' });
    expect(screen.queryByText('Sua conta foi acessada em outro computador.')).not.toBeInTheDocument();
    socket.serverEmit('company-1-auth', { action: 'update', user: { id: 1 }, sessionId: 'other' });
    expect(await screen.findByText('Sua conta foi acessada em outro computador.')).toBeInTheDocument();
    expect(localStorage.getItem('token')).toBeNull();
    // Kept for the login page after the reload.
    expect(sessionStorage.getItem('signOutNotice')).toBe('elsewhere');
    expect(reload).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(reload).toHaveBeenCalled();
    vi.useRealTimers();
  });
});

describe('language and theme', () => {
  it('switches language and theme from the login page and remembers them', async () => {
    mockServer({ ...publicSettings() });
    renderApp('/login');
    const user = userEvent.setup();
    expect(await screen.findByTestId('login-submit')).toHaveTextContent('Entrar');
    await user.click(screen.getByTestId('language-switcher'));
    await user.click(await screen.findByTestId('language-option-en'));
    // The English catalogue is its own chunk, fetched on the switch.
    await waitFor(() => expect(screen.getByTestId('login-submit')).toHaveTextContent('Sign in'));
    expect(localStorage.getItem('language')).toBe('en');
    expect(document.documentElement.dataset.theme).toBe('light');
    await user.click(screen.getByTestId('theme-toggle'));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    expect(localStorage.getItem('preferredTheme')).toBe('dark');
    await user.click(screen.getByTestId('theme-toggle'));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('light'));
  });
});
