import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ATTENDANT_PERMISSIONS, authFixture, userFixture } from '../../../test/fixtures';
import { imageResponse, PNG_BYTES, stubObjectUrls } from '../../../test/object-urls';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const ANA = { id: 7, name: 'Ana Souza', email: 'ana@chatflow.test', profile: 'user', super: false };

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  await setLanguage('pt');
});
afterEach(() => urls.restore());

function attendantServer(routes: Record<string, MockHandler>) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ user: ANA, permissions: ATTENDANT_PERMISSIONS }),
    'GET /users/:id/avatar': () => imageResponse(),
    ...routes,
  });
}

async function openProfile() {
  const user = userEvent.setup({ applyAccept: false });
  await user.click(await screen.findByTestId('user-menu-button'));
  await user.click(await screen.findByTestId('menu-profile'));
  const dialog = await screen.findByTestId('profile-dialog');
  return { user, dialog, input: within(dialog).getByTestId('profile-avatar-input') };
}

// By selector: while a dialog is open the top bar is aria-hidden.
const topBarImage = () => screen.getByTestId('user-menu-button').querySelector('img');

describe('profile dialog: own avatar', () => {
  it('checks type and size in the browser, then uploads the picture and shows it in the top bar', async () => {
    const server = attendantServer({
      'POST /users/:id/media-upload': () => userFixture({ ...ANA, profileImage: 'c0ffee.png' }),
    });
    renderApp('/');
    const { user, dialog, input } = await openProfile();
    expect(screen.getByTestId('user-menu-avatar')).toHaveTextContent('AS');
    expect(within(dialog).getByText('PNG, JPEG, GIF ou WebP, até 2 MB')).toBeInTheDocument();

    await user.upload(input, new File(['%PDF-1.4'], 'cv.pdf', { type: 'application/pdf' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Escolha uma imagem PNG, JPEG, GIF ou WebP.');
    await user.upload(input, new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'huge.png', { type: 'image/png' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('A imagem deve ter no máximo 2 MB.');
    expect(server.find('POST', '/users/7/media-upload')).toHaveLength(0);

    const photo = new File([PNG_BYTES], 'me.png', { type: 'image/png' });
    await user.upload(input, photo);
    await waitFor(() => expect(server.find('POST', '/users/7/media-upload')).toHaveLength(1));
    const body = server.find('POST', '/users/7/media-upload')[0].body;
    expect(body).toBeInstanceOf(FormData);
    const sent = (body as FormData).get('profileImage');
    expect(sent).toBeInstanceOf(File);
    expect((sent as File).name).toBe('me.png');
    expect(await screen.findByText('Foto atualizada com sucesso!')).toBeInTheDocument();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();

    // The uploaded bytes are shown at once, in the top bar and in the dialog.
    await waitFor(() => expect(topBarImage()).toHaveAttribute('src', expect.stringMatching(/^blob:/)));
    expect(within(dialog).getByTestId('profile-avatar-avatar').querySelector('img')).toHaveAttribute('src', expect.stringMatching(/^blob:/));
    expect(urls.createObjectURL).toHaveBeenCalledWith(photo);
    expect(server.find('GET', '/users/7/avatar')).toHaveLength(0);
  });

  it('shows the server refusals: not an image, too large', async () => {
    let answer = reply(422, { error: 'ERR_VALIDATION', message: 'bad', fields: [{ field: 'profileImage', code: 'INVALID_FORMAT' }] });
    const server = attendantServer({ 'POST /users/:id/media-upload': () => answer });
    renderApp('/');
    const { user, dialog, input } = await openProfile();
    await user.upload(input, new File([PNG_BYTES], 'fake.png', { type: 'image/png' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Escolha uma imagem PNG, JPEG, GIF ou WebP.');

    answer = reply(413, { error: 'ERR_PAYLOAD_TOO_LARGE', message: 'too large' });
    await user.upload(input, new File([PNG_BYTES], 'again.png', { type: 'image/png' }));
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('O conteúdo enviado é grande demais.'));
    expect(server.find('POST', '/users/7/media-upload')).toHaveLength(2);
    expect(topBarImage()).toBeNull();
  });

  it('shows a stored picture fetched with the token after a reload', async () => {
    const server = attendantServer({
      'GET /auth/me': () => authFixture({ user: { ...ANA, profileImage: 'stored.png' }, permissions: ATTENDANT_PERMISSIONS }),
    });
    renderApp('/');
    await waitFor(() => expect(topBarImage()).toHaveAttribute('src', urls.created[0]));
    expect(server.find('GET', '/users/7/avatar')[0].headers.Authorization).toBe('Bearer stored');
  });

  it('translates the control', async () => {
    await setLanguage('en');
    attendantServer({});
    renderApp('/');
    const { dialog } = await openProfile();
    expect(within(dialog).getByTestId('profile-avatar-button')).toHaveTextContent('Change photo');
    expect(within(dialog).getByText('PNG, JPEG, GIF or WebP, up to 2 MB')).toBeInTheDocument();
  });
});
