import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { authFixture, userFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { imageResponse, PNG_BYTES, stubObjectUrls } from '../../../test/object-urls';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const attendant = (id: number, name = `User ${id}`) =>
  userFixture({ id, name, email: `user${id}@chatflow.test`, profile: 'user', super: false, online: false });

function adminServer(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture(),
    'GET /queue': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no route' }),
    ...routes,
  });
}

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  await setLanguage('pt');
});
afterEach(() => urls.restore());

describe('/users', () => {
  it('lists users with status, profile and work hours', async () => {
    adminServer({ 'GET /users/': () => ({ users: [userFixture(), attendant(2, 'Bia')], count: 2, hasMore: false }) });
    renderApp('/users');
    const row = await screen.findByTestId('users-row-2');
    expect(row).toHaveTextContent('Bia');
    expect(row).toHaveTextContent('user2@chatflow.test');
    expect(row).toHaveTextContent('Usuário');
    expect(row).toHaveTextContent('00:00');
    expect(row).toHaveTextContent('23:59');
    expect(within(screen.getByTestId('users-row-1')).getByLabelText('Online')).toHaveAttribute('data-online', 'true');
  });

  it('never offers the signed-in admin to delete their own account', async () => {
    const server = adminServer({ 'GET /users/': () => ({ users: [userFixture(), attendant(2, 'Bia')], count: 2, hasMore: false }) });
    renderApp('/users');
    const own = await screen.findByTestId('users-delete-1');
    expect(own).toBeDisabled();
    expect(own).toHaveAccessibleName('Você não pode excluir a sua própria conta.');
    expect(screen.getByTestId('users-delete-2')).toBeEnabled();
    const user = userEvent.setup();
    await user.hover(screen.getByTestId('users-delete-self-1'));
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Você não pode excluir a sua própria conta.');
    fireEvent.click(own);
    expect(screen.queryByTestId('users-delete-dialog')).not.toBeInTheDocument();
    expect(server.find('DELETE', '/users/1')).toHaveLength(0);
  });

  it('searches lower-cased after 500 ms and loads the next page near the bottom', async () => {
    const server = adminServer({
      'GET /users/': ({ query }) => {
        const page = Number(query.get('pageNumber'));
        const base = (page - 1) * 20;
        return { users: Array.from({ length: 20 }, (_, i) => attendant(base + i + 10)), count: 60, hasMore: page < 3 };
      },
    });
    renderApp('/users');
    await screen.findByTestId('users-row-10');
    const container = screen.getByTestId('users-table-container');
    Object.defineProperty(container, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(container, 'clientHeight', { configurable: true, value: 400 });
    container.scrollTop = 300; // 300 px from the bottom: nothing
    fireEvent.scroll(container);
    container.scrollTop = 520; // 80 px from the bottom: next page
    fireEvent.scroll(container);
    expect(await screen.findByTestId('users-row-30')).toBeInTheDocument();
    expect(server.find('GET', '/users/').map((r) => r.query.get('pageNumber'))).toEqual(['1', '2']);

    const user = userEvent.setup();
    await user.type(screen.getByTestId('users-search'), 'ANA');
    await waitFor(() => expect(server.find('GET', '/users/').some((r) => r.query.get('searchParam') === 'ana')).toBe(true), { timeout: 2000 });
    const searched = server.find('GET', '/users/').filter((r) => r.query.get('searchParam') !== '');
    expect(searched.map((r) => r.query.get('searchParam'))).toEqual(['ana']);
    expect(searched[0].query.get('pageNumber')).toBe('1');
  });

  it('creates a user: validates, maps server field errors, then saves', async () => {
    let attempts = 0;
    const server = adminServer({
      'GET /users/': () => ({ users: [userFixture()], count: 1, hasMore: false }),
      'POST /users': ({ body }) => {
        attempts += 1;
        if (attempts === 1) return reply(409, { error: 'ERR_DUPLICATED_EMAIL', message: 'dup', fields: [{ field: 'email', code: 'INVALID_FORMAT' }] });
        return { ...attendant(3), ...(body as object) };
      },
    });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('users-add'));
    const modal = await screen.findByTestId('user-modal');
    await user.type(within(modal).getByTestId('user-modal-name'), 'A');
    await user.type(within(modal).getByTestId('user-modal-email'), 'not-an-email');
    await user.click(within(modal).getByTestId('user-modal-save'));
    expect(await within(modal).findByText('Muito curto!')).toBeInTheDocument();
    expect(within(modal).getByText('Email inválido')).toBeInTheDocument();
    expect(within(modal).getByText('Obrigatório')).toBeInTheDocument(); // password on create

    await user.type(within(modal).getByTestId('user-modal-name'), 'na Souza');
    await user.clear(within(modal).getByTestId('user-modal-email'));
    await user.type(within(modal).getByTestId('user-modal-email'), 'ana@chatflow.test');
    await user.type(within(modal).getByTestId('user-modal-password'), 'Attend@2024');
    await user.click(within(modal).getByTestId('user-modal-save'));
    expect(await within(modal).findByText('Formato inválido')).toBeInTheDocument();
    expect(await screen.findByText('Já existe um usuário com este email.')).toBeInTheDocument();

    await user.click(within(modal).getByTestId('user-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('user-modal')).not.toBeInTheDocument());
    expect(server.find('POST', '/users')[1].body).toEqual({
      name: 'Ana Souza',
      email: 'ana@chatflow.test',
      password: 'Attend@2024',
      farewellMessage: '',
      defaultTheme: 'light',
      defaultMenu: 'open',
      profile: 'user',
      queueIds: [],
      whatsappId: null,
      startWork: '00:00',
      endWork: '23:59',
      allTicket: 'disable',
      allowGroup: false,
      allHistoric: 'disabled',
      allUserChat: 'disabled',
      userClosePendingTicket: 'disabled',
      showDashboard: 'disabled',
      allowRealTime: 'disabled',
      allowConnections: 'disabled',
    });
    expect(await screen.findByText('Usuário salvo com sucesso!')).toBeInTheDocument();
  });

  it('edits a user without requiring a password and toggles a permission', async () => {
    const server = adminServer({
      'GET /users/': () => ({ users: [userFixture(), attendant(2, 'Bia')], count: 2, hasMore: false }),
      'GET /users/:id': () => attendant(2, 'Bia'),
      'PUT /users/:id': ({ body }) => ({ ...attendant(2), ...(body as object) }),
    });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('users-edit-2'));
    const modal = await screen.findByTestId('user-modal');
    await waitFor(() => expect(within(modal).getByTestId('user-modal-name')).toHaveValue('Bia'));
    await user.click(within(modal).getByTestId('user-modal-tab-permissions'));
    await user.click(within(modal).getByTestId('user-modal-showDashboard'));
    await user.click(within(modal).getByTestId('user-modal-save'));
    await waitFor(() => expect(server.find('PUT', '/users/2')).toHaveLength(1));
    const body = server.find('PUT', '/users/2')[0].body as Record<string, unknown>;
    expect(body).not.toHaveProperty('password');
    expect(body.showDashboard).toBe('enabled');
    expect(body.name).toBe('Bia');
  });

  it('uploads an avatar for the edited user (edit mode only) and refreshes the list', async () => {
    let bia: Omit<ReturnType<typeof attendant>, 'profileImage'> & { profileImage: string | null } = attendant(2, 'Bia');
    const server = adminServer({
      'GET /users/': () => ({ users: [userFixture(), bia], count: 2, hasMore: false }),
      'GET /users/:id/avatar': () => imageResponse(),
      'GET /users/:id': () => bia,
      'POST /users/:id/media-upload': () => {
        bia = { ...bia, profileImage: 'b1a.webp' };
        return bia;
      },
    });
    renderApp('/users');
    const user = userEvent.setup();
    expect(await screen.findByTestId('users-avatar-2')).toHaveTextContent('B');

    await user.click(screen.getByTestId('users-add'));
    let modal = await screen.findByTestId('user-modal');
    expect(within(modal).queryByTestId('user-modal-avatar')).not.toBeInTheDocument();
    await user.click(within(modal).getByTestId('user-modal-cancel'));
    await waitFor(() => expect(screen.queryByTestId('user-modal')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('users-edit-2'));
    modal = await screen.findByTestId('user-modal');
    const listCalls = server.find('GET', '/users/').length;
    await user.upload(within(modal).getByTestId('user-modal-avatar-input'), new File([PNG_BYTES], 'bia.webp', { type: 'image/webp' }));
    await waitFor(() => expect(server.find('POST', '/users/2/media-upload')).toHaveLength(1));
    expect(await screen.findByText('Foto atualizada com sucesso!')).toBeInTheDocument();
    await waitFor(() => expect(within(modal).getByTestId('user-modal-avatar-avatar').querySelector('img')).toHaveAttribute('src', expect.stringMatching(/^blob:/)));
    await waitFor(() => expect(server.find('GET', '/users/').length).toBeGreaterThan(listCalls));
    await user.click(within(modal).getByTestId('user-modal-cancel'));
    await waitFor(() => expect(screen.getByTestId('users-avatar-2').querySelector('img')).toHaveAttribute('src', expect.stringMatching(/^blob:/)));
    // The admin's own avatar in the top bar is untouched.
    expect(screen.getByTestId('user-menu-avatar').querySelector('img')).toBeNull();
  });

  it('deletes a user after confirmation', async () => {
    let users = [userFixture(), attendant(2, 'Bia')];
    const server = adminServer({
      'GET /users/': () => ({ users, count: users.length, hasMore: false }),
      'DELETE /users/:id': () => {
        users = users.filter((u) => u.id !== 2);
        return undefined;
      },
    });
    renderApp('/users');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('users-delete-2'));
    expect(await screen.findByText('Excluir Bia?')).toBeInTheDocument();
    await user.click(screen.getByTestId('users-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('users-row-2')).not.toBeInTheDocument());
    expect(server.find('DELETE', '/users/2')).toHaveLength(1);
    expect(await screen.findByText('Usuário excluído com sucesso!')).toBeInTheDocument();
  });

  it('applies the summary events the server sends, then refetches the rest', async () => {
    let users = [userFixture()];
    const server = adminServer({ 'GET /users/': () => ({ users, count: users.length, hasMore: false }) });
    renderApp('/users');
    await screen.findByTestId('users-row-1');
    const socket = lastSocket();
    users = [userFixture(), attendant(6, 'Davi')];
    socket.serverEmit('company-1-user', { action: 'create', user: { id: 6, name: 'Davi', profile: 'user', online: false, profileImage: null } });
    expect(await screen.findByTestId('users-row-6')).toHaveTextContent('user6@chatflow.test');
    const before = server.find('GET', '/users/').length;
    users = [userFixture({ name: 'Admin Chefe', online: false }), attendant(6, 'Davi')];
    socket.serverEmit('company-1-user', { action: 'update', user: { id: 1, name: 'Admin Chefe', profile: 'admin', online: false, profileImage: null } });
    await waitFor(() => expect(screen.getByTestId('users-row-1')).toHaveTextContent('Admin Chefe'));
    expect(within(screen.getByTestId('users-row-1')).getByLabelText('Offline')).toBeInTheDocument();
    await waitFor(() => expect(server.find('GET', '/users/').length).toBeGreaterThan(before));
  });

  it('applies live user events: create, update, delete', async () => {
    adminServer({ 'GET /users/': () => ({ users: [userFixture()], count: 1, hasMore: false }) });
    renderApp('/users');
    await screen.findByTestId('users-row-1');
    const socket = lastSocket();
    socket.serverEmit('company-1-user', { action: 'create', user: attendant(5, 'Caio') });
    expect(await screen.findByTestId('users-row-5')).toHaveTextContent('Caio');
    socket.serverEmit('company-1-user', { action: 'update', user: { ...attendant(5, 'Caio Lima'), online: true } });
    await waitFor(() => expect(screen.getByTestId('users-row-5')).toHaveTextContent('Caio Lima'));
    socket.serverEmit('company-1-user', { action: 'delete', userId: 5 });
    await waitFor(() => expect(screen.queryByTestId('users-row-5')).not.toBeInTheDocument());
    // another company's events are not heard
    socket.serverEmit('company-2-user', { action: 'create', user: attendant(9) });
    expect(screen.queryByTestId('users-row-9')).not.toBeInTheDocument();
  });
});
