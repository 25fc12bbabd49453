import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { z as mini } from 'zod/mini';
import { createApiClient, logoutSignal, refreshSignal, subscriptionExpiredSignal } from './client';
import { ApiError } from './errors';
import { getToken, setToken } from './token';

type Handler = (url: string, init: RequestInit) => Response | Promise<Response>;

function json(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

const expired = () => json(403, { error: 'ERR_TOKEN_EXPIRED', message: 'access token expired' });

function mockFetch(handler: Handler) {
  const fn = vi.fn((input: RequestInfo | URL, init?: RequestInit) => Promise.resolve(handler(String(input), init ?? {})));
  vi.stubGlobal('fetch', fn);
  return fn;
}

function authHeader(init: RequestInit): string | undefined {
  return (init.headers as Record<string, string> | undefined)?.Authorization;
}

const calls = (fn: ReturnType<typeof mockFetch>, path: string) => fn.mock.calls.filter(([url]) => String(url).startsWith(path)).length;

describe('api client', () => {
  const client = createApiClient({ baseUrl: '', authenticated: true });
  const publicClient = createApiClient({ baseUrl: '', authenticated: false });

  beforeEach(() => {
    setToken('old-token', true);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the bearer token and cookies', async () => {
    const fetch = mockFetch(() => json(200, { ok: true }));
    await client.get('/auth/me');
    const [, init] = fetch.mock.calls[0];
    expect(authHeader(init!)).toBe('Bearer old-token');
    expect(init!.credentials).toBe('include');
  });

  it('public client sends neither token nor cookies', async () => {
    const fetch = mockFetch(() => json(200, { key: 'appName', value: 'X' }));
    await publicClient.get('/public-settings/appName');
    const [, init] = fetch.mock.calls[0];
    expect(authHeader(init!)).toBeUndefined();
    expect(init!.credentials).toBe('omit');
  });

  it('parses the response with the given schema', async () => {
    mockFetch(() => json(200, { version: '1.2.3', extra: 1 }));
    const data = await client.get('/version', { schema: mini.object({ version: mini.string() }) });
    expect(data).toEqual({ version: '1.2.3' });
  });

  it('takes a classic zod schema as well', async () => {
    mockFetch(() => json(200, { version: '1.2.3', extra: 1 }));
    const data = await client.get('/version', { schema: z.object({ version: z.string() }) });
    expect(data).toEqual({ version: '1.2.3' });
  });

  it('on a 403 ERR_TOKEN_EXPIRED refreshes once, stores the new token and retries', async () => {
    const refreshed = vi.fn();
    const off = refreshSignal.on(refreshed);
    const fetch = mockFetch((url, init) => {
      if (url === '/auth/refresh_token') return json(200, { token: 'new-token', user: {}, permissions: [] });
      return authHeader(init) === 'Bearer new-token' ? json(200, { users: [] }) : expired();
    });
    await expect(client.get('/users/')).resolves.toEqual({ users: [] });
    expect(calls(fetch, '/auth/refresh_token')).toBe(1);
    expect(calls(fetch, '/users/')).toBe(2);
    expect(getToken()).toBe('new-token');
    expect(refreshed).toHaveBeenCalledWith(expect.objectContaining({ token: 'new-token' }));
    const refreshInit = fetch.mock.calls.find(([url]) => url === '/auth/refresh_token')![1]!;
    expect(refreshInit.method).toBe('POST');
    expect(refreshInit.credentials).toBe('include');
    off();
  });

  it('concurrent 403s share one refresh', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fetch = mockFetch(async (url, init) => {
      if (url === '/auth/refresh_token') {
        await gate;
        return json(200, { token: 'new-token' });
      }
      return authHeader(init) === 'Bearer new-token' ? json(200, { url }) : expired();
    });
    const pending = Promise.all([client.get('/a'), client.get('/b'), client.put('/c', { x: 1 })]);
    await vi.waitFor(() => expect(calls(fetch, '/auth/refresh_token')).toBe(1));
    release();
    await expect(pending).resolves.toEqual([{ url: '/a' }, { url: '/b' }, { url: '/c' }]);
    expect(calls(fetch, '/auth/refresh_token')).toBe(1);
  });

  it('retries only once: a second 403 after the refresh is an error', async () => {
    const fetch = mockFetch((url) => (url === '/auth/refresh_token' ? json(200, { token: 'new-token' }) : expired()));
    await expect(client.get('/x')).rejects.toMatchObject({ status: 403, code: 'ERR_TOKEN_EXPIRED' });
    expect(calls(fetch, '/auth/refresh_token')).toBe(1);
    expect(calls(fetch, '/x')).toBe(2);
  });

  it('a 403 for a missing permission is not refreshed', async () => {
    const fetch = mockFetch(() => json(403, { error: 'ERR_NO_PERMISSION', message: 'no' }));
    await expect(client.get('/settings')).rejects.toMatchObject({ status: 403, code: 'ERR_NO_PERMISSION' });
    expect(calls(fetch, '/auth/refresh_token')).toBe(0);
  });

  it('a failed refresh clears the token and signals logout', async () => {
    const logout = vi.fn();
    const off = logoutSignal.on(logout);
    mockFetch((url) => (url === '/auth/refresh_token' ? json(401, { error: 'ERR_SESSION_EXPIRED', message: 'x' }) : expired()));
    await expect(client.get('/users/')).rejects.toMatchObject({ status: 401, code: 'ERR_SESSION_EXPIRED' });
    expect(getToken()).toBeNull();
    expect(logout).toHaveBeenCalledWith({ reason: 'refresh-failed' });
    off();
  });

  it('a 401 clears the token and signals logout', async () => {
    const logout = vi.fn();
    const off = logoutSignal.on(logout);
    const fetch = mockFetch(() => json(401, { error: 'ERR_SESSION_EXPIRED', message: 'expired' }));
    const error = await client.get('/auth/me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'ERR_SESSION_EXPIRED', message: 'expired' });
    expect(getToken()).toBeNull();
    expect(logout).toHaveBeenCalledWith({ reason: 'unauthorized' });
    expect(calls(fetch, '/auth/refresh_token')).toBe(0);
    off();
  });

  it('signals an expired subscription on a 402', async () => {
    const expiredSub = vi.fn();
    const off = subscriptionExpiredSignal.on(expiredSub);
    mockFetch(() => json(402, { error: 'ERR_SUBSCRIPTION_EXPIRED', message: 'expired' }));
    await expect(client.get('/users/')).rejects.toMatchObject({ status: 402, code: 'ERR_SUBSCRIPTION_EXPIRED' });
    expect(expiredSub).toHaveBeenCalledTimes(1);
    expect(getToken()).toBe('old-token');
    off();
  });

  it('surfaces validation errors with their fields', async () => {
    mockFetch(() => json(422, { error: 'ERR_VALIDATION', message: 'invalid', fields: [{ field: 'name', code: 'TOO_SHORT' }] }));
    await expect(client.post('/users', { name: 'a' })).rejects.toMatchObject({
      status: 422,
      code: 'ERR_VALIDATION',
      fields: [{ field: 'name', code: 'TOO_SHORT' }],
    });
  });

  it('keeps a non-JSON error body as the message', async () => {
    mockFetch(() => new Response('Bad gateway', { status: 502 }));
    await expect(client.get('/x')).rejects.toMatchObject({ status: 502, code: undefined, message: 'Bad gateway' });
  });

  it('turns a network failure into ERR_NETWORK', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(client.get('/x')).rejects.toMatchObject({ status: 0, code: 'ERR_NETWORK' });
  });

  it('encodes query parameters and skips empty ones', async () => {
    const fetch = mockFetch(() => json(200, {}));
    await client.get('/users/', { params: { searchParam: 'ana maria', pageNumber: 2, skip: undefined } });
    expect(fetch.mock.calls[0][0]).toBe('/users/?searchParam=ana+maria&pageNumber=2');
  });

  it('fetches binary resources as a blob, refreshing an expired token like any call', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const fetch = mockFetch((url, init) => {
      if (url === '/auth/refresh_token') return json(200, { token: 'new-token' });
      if (authHeader(init) !== 'Bearer new-token') return expired();
      return new Response(bytes, { status: 200, headers: { 'Content-Type': 'image/png' } });
    });
    const blob = await client.blob('/users/7/avatar');
    expect(blob.type).toBe('image/png');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes);
    expect(calls(fetch, '/users/7/avatar')).toBe(2);
    expect((fetch.mock.calls[0][1]!.headers as Record<string, string>).Accept).toBe('*/*');
  });

  it('surfaces the error of a failed blob request', async () => {
    mockFetch(() => json(404, { error: 'ERR_NOT_FOUND', message: 'no avatar' }));
    await expect(client.blob('/users/7/avatar')).rejects.toMatchObject({ status: 404, code: 'ERR_NOT_FOUND' });
  });

  it('sends FormData as multipart, without a JSON content type', async () => {
    const fetch = mockFetch(() => json(200, { id: 7 }));
    const form = new FormData();
    form.append('profileImage', new File(['x'], 'a.png', { type: 'image/png' }));
    await client.post('/users/7/media-upload', form);
    const [, init] = fetch.mock.calls[0];
    expect(init!.body).toBe(form);
    expect((init!.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });
});
