import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { UserAvatar, type AvatarUser } from '../../components/UserAvatar';
import { setToken } from '../api';
import { imageResponse, PNG_BYTES, stubObjectUrls } from '../../test/object-urls';
import { mockServer, reply } from '../../test/server';
import { AVATAR_MAX_BYTES, initialsOf, validateAvatarFile } from './index';

let urls: ReturnType<typeof stubObjectUrls>;
let created: string[];
let createObjectURL: ReturnType<typeof stubObjectUrls>['createObjectURL'];
let revokeObjectURL: ReturnType<typeof stubObjectUrls>['revokeObjectURL'];
const image = () => imageResponse();

beforeEach(() => {
  urls = stubObjectUrls();
  ({ created, createObjectURL, revokeObjectURL } = urls);
  setToken('avatar-token', true);
});

afterEach(() => urls.restore());

function renderAvatars(users: AvatarUser[]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrap = (children: ReactNode) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const tree = (list: AvatarUser[]) => wrap(list.map((user, index) => <UserAvatar key={index} user={user} testId={`avatar-${index}`} />));
  const result = render(tree(users));
  return { ...result, rerenderWith: (list: AvatarUser[]) => result.rerender(tree(list)) };
}

const imgOf = (testId: string) => screen.getByTestId(testId).querySelector('img');

describe('UserAvatar / useAvatarUrl', () => {
  it('fetches the avatar with the token, shows it through an object URL and revokes it on change and unmount', async () => {
    const server = mockServer({ 'GET /users/:id/avatar': () => image() });
    const view = renderAvatars([{ id: 7, name: 'Ana Souza', profileImage: 'first.png' }]);
    // initials while loading
    expect(screen.getByTestId('avatar-0')).toHaveTextContent('AS');
    await waitFor(() => expect(imgOf('avatar-0')).toHaveAttribute('src', created[0]));
    expect(server.find('GET', '/users/7/avatar')).toHaveLength(1);
    expect(server.requests[0].headers.Authorization).toBe('Bearer avatar-token');
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    expect(createObjectURL.mock.calls[0][0]).toMatchObject({ size: PNG_BYTES.length, type: 'image/png' });
    expect(revokeObjectURL).not.toHaveBeenCalled();

    // a new upload stores a new file name: fetched again, the old URL revoked
    view.rerenderWith([{ id: 7, name: 'Ana Souza', profileImage: 'second.png' }]);
    await waitFor(() => expect(imgOf('avatar-0')).toHaveAttribute('src', created[1]));
    expect(server.find('GET', '/users/7/avatar')).toHaveLength(2);
    expect(revokeObjectURL).toHaveBeenCalledWith(created[0]);

    view.unmount();
    expect(revokeObjectURL).toHaveBeenCalledWith(created[1]);
    expect(revokeObjectURL).toHaveBeenCalledTimes(created.length);
  });

  it('shares one cached image and one URL between avatars of the same picture', async () => {
    const server = mockServer({ 'GET /users/:id/avatar': () => image() });
    const ana = { id: 7, name: 'Ana Souza', profileImage: 'same.png' };
    const view = renderAvatars([ana, ana]);
    await waitFor(() => expect(imgOf('avatar-1')).toHaveAttribute('src', created[0]));
    expect(imgOf('avatar-0')).toHaveAttribute('src', created[0]);
    expect(server.find('GET', '/users/7/avatar')).toHaveLength(1);
    expect(createObjectURL).toHaveBeenCalledTimes(1);

    view.rerenderWith([ana]);
    expect(revokeObjectURL).not.toHaveBeenCalled();
    view.unmount();
    expect(revokeObjectURL).toHaveBeenCalledExactlyOnceWith(created[0]);
  });

  it('shows the initials without fetching when the user has no profileImage', () => {
    const server = mockServer({});
    renderAvatars([
      { id: 3, name: 'Bia', profileImage: null },
      { id: 4, name: '  joão  da silva ' },
    ]);
    expect(screen.getByTestId('avatar-0')).toHaveTextContent('B');
    expect(screen.getByTestId('avatar-1')).toHaveTextContent('JS');
    expect(imgOf('avatar-0')).toBeNull();
    expect(server.requests).toHaveLength(0);
    expect(createObjectURL).not.toHaveBeenCalled();
  });

  it('falls back to the initials when the image cannot be fetched', async () => {
    const server = mockServer({ 'GET /users/:id/avatar': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'gone' }) });
    renderAvatars([{ id: 8, name: 'Caio Lima', profileImage: 'missing.png' }]);
    await waitFor(() => expect(server.find('GET', '/users/8/avatar')).toHaveLength(1));
    expect(screen.getByTestId('avatar-0')).toHaveTextContent('CL');
    expect(imgOf('avatar-0')).toBeNull();
    expect(createObjectURL).not.toHaveBeenCalled();
  });
});

describe('initialsOf', () => {
  it('takes the first letters of the first and last words', () => {
    expect(initialsOf('Ana Maria Souza')).toBe('AS');
    expect(initialsOf('admin')).toBe('A');
    expect(initialsOf('   ')).toBe('?');
    expect(initialsOf('émile zola')).toBe('ÉZ');
  });
});

describe('validateAvatarFile', () => {
  const file = (type: string, size = 10, name = 'photo') => new File([new Uint8Array(size)], name, { type });

  it.each(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])('accepts %s', (type) => {
    expect(validateAvatarFile(file(type))).toBeNull();
  });

  it.each(['image/svg+xml', 'image/bmp', 'application/pdf', 'text/plain'])('refuses %s', (type) => {
    expect(validateAvatarFile(file(type))).toBe('avatar.invalidType');
  });

  it('goes by the extension when the browser declares no type', () => {
    expect(validateAvatarFile(file('', 10, 'me.JPG'))).toBeNull();
    expect(validateAvatarFile(file('', 10, 'me.webp'))).toBeNull();
    expect(validateAvatarFile(file('', 10, 'me.svg'))).toBe('avatar.invalidType');
    expect(validateAvatarFile(file('', 10, 'README'))).toBe('avatar.invalidType');
  });

  it('accepts at most 2 MiB', () => {
    expect(AVATAR_MAX_BYTES).toBe(2 * 1024 * 1024);
    expect(validateAvatarFile(file('image/png', AVATAR_MAX_BYTES))).toBeNull();
    expect(validateAvatarFile(file('image/png', AVATAR_MAX_BYTES + 1))).toBe('avatar.tooLarge');
  });

  it('reports the type before the size', () => {
    expect(validateAvatarFile(file('application/pdf', AVATAR_MAX_BYTES + 1))).toBe('avatar.invalidType');
  });
});
