import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../lib/i18n';
import { setSignOutNotice } from '../../lib/session';
import { ATTENDANT_PERMISSIONS, authFixture } from '../../test/fixtures';
import { renderApp } from '../../test/render';
import { mockServer, reply } from '../../test/server';

vi.mock('socket.io-client', async () => ({ io: (await import('../../test/socket')).ioMock }));

const noPublicSettings = { 'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }) };

/** A signed-in attendant (restored from a stored token); their first page is /tickets. */
function signedIn() {
  localStorage.setItem('token', 'stored');
  const me = authFixture({ user: { id: 7, name: 'Ana', profile: 'user', super: false }, permissions: ATTENDANT_PERMISSIONS });
  return mockServer({ ...noPublicSettings, 'GET /auth/me': () => me });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('routes of the spec not built yet', () => {
  it.each(['/campaigns', '/kanban', '/Kanban', '/chats/3f1c', '/contact-lists/4/contacts', '/financeiro', '/companies'])(
    '%s says the page is not available yet, without leaving the address or adding a menu entry',
    async (path) => {
      signedIn();
      renderApp(path);
      expect(await screen.findByTestId('not-available-page')).toBeInTheDocument();
      expect(screen.getByTestId('not-available-title')).toHaveTextContent('Esta página ainda não está disponível');
      expect(window.location.pathname).toBe(path);
      const menu = screen.getByTestId('side-menu');
      expect(within(menu).queryByText('Campanhas')).not.toBeInTheDocument();
      expect(within(menu).queryByText('Kanban')).not.toBeInTheDocument();
    },
  );

  it('leads home from the page, in the chosen language', async () => {
    signedIn();
    await setLanguage('en');
    renderApp('/reports');
    expect(await screen.findByTestId('not-available-title')).toHaveTextContent('This page is not available yet');
    await userEvent.setup().click(screen.getByTestId('not-available-home'));
    // "/" leads on to the attendant's first page.
    await waitFor(() => expect(window.location.pathname).toBe('/tickets'));
    expect(screen.queryByTestId('not-available-page')).not.toBeInTheDocument();
  });
});

describe('an unknown address', () => {
  it('is a 404 page naming the address, with a link home', async () => {
    signedIn();
    renderApp('/no-such-page/at-all');
    expect(await screen.findByTestId('not-found-page')).toBeInTheDocument();
    expect(screen.getByTestId('not-found-title')).toHaveTextContent('Página não encontrada');
    expect(screen.getByTestId('not-found-page')).toHaveTextContent('O endereço /no-such-page/at-all não existe.');
    expect(window.location.pathname).toBe('/no-such-page/at-all');
    await userEvent.setup().click(screen.getByTestId('not-found-home'));
    await waitFor(() => expect(window.location.pathname).toBe('/tickets'));
  });

  it('sends an anonymous visitor to the login page first', async () => {
    mockServer({ ...noPublicSettings });
    renderApp('/no-such-page');
    expect(await screen.findByTestId('login-page')).toBeInTheDocument();
    expect(screen.queryByTestId('not-found-page')).not.toBeInTheDocument();
  });
});

describe('the login page after a session ended', () => {
  it('says the user signed in on another device or browser, once', async () => {
    mockServer({ ...noPublicSettings });
    setSignOutNotice('elsewhere');
    renderApp('/login');
    expect(await screen.findByTestId('login-signed-out-notice')).toHaveTextContent(
      'Você entrou em outro dispositivo ou navegador, então esta sessão foi encerrada.',
    );
    await waitFor(() => expect(sessionStorage.getItem('signOutNotice')).toBeNull());
  });

  it('says the session ended when the server stopped accepting it', async () => {
    localStorage.setItem('token', 'stored');
    const me = authFixture();
    mockServer({
      ...noPublicSettings,
      'GET /auth/me': () => me,
      // The session was revoked after the restore: the page's call and the refresh are refused.
      'GET /users/': () => reply(401, { error: 'ERR_SESSION_EXPIRED', message: 'x' }),
      'POST /auth/refresh_token': () => reply(401, { error: 'ERR_SESSION_EXPIRED', message: 'x' }),
    });
    renderApp('/users');
    expect(await screen.findByTestId('login-signed-out-notice')).toHaveTextContent('Sua sessão terminou. Entre novamente.');
  });

  it('says nothing on an ordinary visit', async () => {
    mockServer({ ...noPublicSettings });
    renderApp('/login');
    expect(await screen.findByTestId('login-page')).toBeInTheDocument();
    expect(screen.queryByTestId('login-signed-out-notice')).not.toBeInTheDocument();
  });
});
