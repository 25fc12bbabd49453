import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const PLANS = [
  { id: 1, name: 'Básico', users: 3, connections: 1, queues: 2, amount: 49.9, isPublic: true },
  { id: 2, name: 'Pro', users: 10, connections: 3, queues: 5, amount: 149, isPublic: true },
];

function publicServer(routes: Record<string, MockHandler> = {}) {
  return mockServer({
    'GET /public-settings/:key': ({ path }) => (path.endsWith('allowSignup') ? { key: 'allowSignup', value: 'enabled' } : reply(404, {})),
    'GET /plans/list': () => PLANS,
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/signup', () => {
  it('validates with the Portuguese messages', async () => {
    publicServer();
    renderApp('/signup');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('signup-name'), 'A');
    await user.type(screen.getByTestId('signup-email'), 'x@');
    await user.type(screen.getByTestId('signup-password'), '123');
    await user.click(screen.getByTestId('signup-submit'));
    // The core's rules, as the server applies them: an empty company name and phone are missing.
    expect(await screen.findAllByText('Muito curto!')).toHaveLength(2); // name, password
    expect(screen.getByText('Email inválido')).toBeInTheDocument();
    expect(screen.getAllByText('Obrigatório')).toHaveLength(3); // company name, phone, plan
  });

  it('masks the phone, lists plans in BRL and signs up', async () => {
    const server = publicServer({ 'POST /auth/signup': () => reply(201, { companyId: 9 }) });
    renderApp('/signup');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('signup-company'), 'Loja Azul');
    await user.type(screen.getByTestId('signup-name'), 'Maria');
    await user.type(screen.getByTestId('signup-email'), 'Maria@Loja.test');
    await user.type(screen.getByTestId('signup-password'), 'segredo1');
    await user.type(screen.getByTestId('signup-phone'), '11987654321');
    expect(screen.getByTestId('signup-phone')).toHaveValue('(11) 98765-4321');
    await user.click(screen.getByTestId('signup-plan'));
    const option = await screen.findByTestId('signup-plan-option-2');
    expect(option.textContent).toMatch(/Pro - Atendentes: 10 - Conexões: 3 - Filas: 5 - R\$\s149,00/);
    await user.click(option);
    await user.click(screen.getByTestId('signup-submit'));
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    expect(server.find('POST', '/auth/signup')[0].body).toEqual({
      companyName: 'Loja Azul',
      name: 'Maria',
      email: 'maria@loja.test',
      password: 'segredo1',
      phone: '11987654321',
      planId: 2,
    });
    expect(await screen.findByText('Usuário criado com sucesso! Faça seu login!')).toBeInTheDocument();
  });

  it('shows ERR_SIGNUP_DISABLED translated', async () => {
    publicServer({ 'POST /auth/signup': () => reply(403, { error: 'ERR_SIGNUP_DISABLED', message: 'signup disabled' }) });
    renderApp('/signup');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('signup-company'), 'Loja Azul');
    await user.type(screen.getByTestId('signup-name'), 'Maria');
    await user.type(screen.getByTestId('signup-email'), 'maria@loja.test');
    await user.type(screen.getByTestId('signup-password'), 'segredo1');
    await user.type(screen.getByTestId('signup-phone'), '1133334444');
    await user.click(screen.getByTestId('signup-plan'));
    await user.click(await screen.findByTestId('signup-plan-option-1'));
    await user.click(screen.getByTestId('signup-submit'));
    expect(await screen.findByText('O cadastro de novas empresas está desabilitado.')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/signup');
  });
});

describe('/forgetpsw', () => {
  it('requests a code, then resets with the spec rules', async () => {
    const server = publicServer({
      'POST /forgetpassword/:email': () => ({}),
      'POST /resetpasswords/:email/:token/:password': () => ({}),
    });
    renderApp('/forgetpsw');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('forgot-email'), 'Ana@Chatflow.test');
    await user.click(screen.getByTestId('forgot-request-code'));
    expect(await screen.findByText('Email enviado com sucesso!')).toBeInTheDocument();
    expect(server.find('POST', '/forgetpassword/ana%40chatflow.test')).toHaveLength(1);

    await user.type(await screen.findByTestId('forgot-code'), '123456');
    await user.type(screen.getByTestId('forgot-new-password'), 'weakpass');
    await user.type(screen.getByTestId('forgot-confirm-password'), 'different');
    await user.click(screen.getByTestId('forgot-reset'));
    expect(
      await screen.findByText('Sua senha precisa ter no mínimo 8 caracteres, sendo uma letra maiúscula, uma minúscula e um número.'),
    ).toBeInTheDocument();
    expect(screen.getByText('As senhas não correspondem')).toBeInTheDocument();

    await user.clear(screen.getByTestId('forgot-new-password'));
    await user.type(screen.getByTestId('forgot-new-password'), 'NovaSenha1');
    await user.clear(screen.getByTestId('forgot-confirm-password'));
    await user.type(screen.getByTestId('forgot-confirm-password'), 'NovaSenha1');
    await user.click(screen.getByTestId('forgot-reset'));
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    expect(server.find('POST', '/resetpasswords/ana%40chatflow.test/123456/NovaSenha1')).toHaveLength(1);
    expect(await screen.findByText('Senha redefinida com sucesso.')).toBeInTheDocument();
  });

  it('says the e-mail was not found on a 404', async () => {
    publicServer({ 'POST /forgetpassword/:email': () => reply(404, { error: 'ERR_NO_USER_FOUND', message: 'no user' }) });
    renderApp('/forgetpsw');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('forgot-email'), 'ghost@chatflow.test');
    await user.click(screen.getByTestId('forgot-request-code'));
    expect(await screen.findByText('Email não encontrado')).toBeInTheDocument();
  });
});

describe('profile dialog', () => {
  it('updates the own name and theme preference', async () => {
    localStorage.setItem('token', 'stored');
    const me = authFixture({ user: { name: 'Ana', profile: 'user' }, permissions: [] });
    const server = mockServer({
      'GET /public-settings/:key': () => reply(404, {}),
      'GET /auth/me': () => me,
      'PUT /users/:id': ({ body }) => ({ ...me.user, ...(body as object) }),
    });
    renderApp('/');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('user-menu-button'));
    await user.click(await screen.findByTestId('menu-profile'));
    const name = await screen.findByTestId('profile-name');
    await user.clear(name);
    await user.type(name, 'Ana Maria');
    await user.click(screen.getByTestId('profile-theme'));
    await user.click(await screen.findByTestId('profile-theme-option-dark'));
    await user.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(screen.getByTestId('topbar-greeting')).toHaveTextContent('Olá Ana Maria'));
    expect(server.find('PUT', '/users/1')[0].body).toEqual({
      name: 'Ana Maria',
      email: 'admin@chatflow.test',
      defaultTheme: 'dark',
      defaultMenu: 'open',
      farewellMessage: '',
    });
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
