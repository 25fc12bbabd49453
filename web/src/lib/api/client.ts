/**
 * The one API client (docs/api.md "Conventions").
 *
 * - `api`: sends cookies and the bearer token. A 403 `ERR_TOKEN_EXPIRED` (or a 403 without a
 *   readable code) triggers one `POST /auth/refresh_token`, shared by every request waiting on
 *   it; the new token is stored and the request retried once. A 401, or a failed refresh,
 *   clears the token and signals logout.
 *   A 402 signals that the subscription expired (the session then leads to /financeiro-aberto).
 * - `publicApi`: no cookies, no token, no refresh; for public calls.
 */
import { parse, type z } from 'zod/mini';
import { ApiError, apiErrorFrom } from './errors';
import { createEmitter } from './events';
import { clearToken, getToken, setToken } from './token';

export const API_BASE_URL: string = (import.meta.env.VITE_BACKEND_URL as string | undefined) ?? '';

/** Emitted when the session ends from the server's point of view (401 or refresh failure). */
export const logoutSignal = createEmitter<{ reason: 'unauthorized' | 'refresh-failed' }>();
/** Emitted on a 402 `ERR_SUBSCRIPTION_EXPIRED`: the session's subscription has run out. */
export const subscriptionExpiredSignal = createEmitter<void>();
/** Emitted with the body of a successful refresh (`{token, user, permissions, subscription}`). */
export const refreshSignal = createEmitter<{ token: string; body: unknown }>();

type Params = Record<string, string | number | boolean | null | undefined>;

/**
 * `schema` is any zod 4 schema, classic or `zod/mini` (the first load's are mini, to keep classic
 * zod out of it), so the answer is parsed through the core's `parse`, which both share.
 */
export interface RequestOptions<S extends z.core.$ZodType | undefined = undefined> {
  body?: unknown;
  params?: Params;
  schema?: S;
  signal?: AbortSignal;
}

type Result<S> = S extends z.core.$ZodType ? z.output<S> : unknown;

export interface ApiClient {
  request<S extends z.core.$ZodType | undefined = undefined>(method: string, path: string, options?: RequestOptions<S>): Promise<Result<S>>;
  get<S extends z.core.$ZodType | undefined = undefined>(path: string, options?: RequestOptions<S>): Promise<Result<S>>;
  post<S extends z.core.$ZodType | undefined = undefined>(path: string, body?: unknown, options?: RequestOptions<S>): Promise<Result<S>>;
  put<S extends z.core.$ZodType | undefined = undefined>(path: string, body?: unknown, options?: RequestOptions<S>): Promise<Result<S>>;
  delete<S extends z.core.$ZodType | undefined = undefined>(path: string, options?: RequestOptions<S>): Promise<Result<S>>;
  /** `GET` of a binary resource (an image...), with the same token, refresh and error handling. */
  blob(path: string, options?: Pick<RequestOptions, 'params' | 'signal'>): Promise<Blob>;
}

export function buildUrl(baseUrl: string, path: string, params?: Params): string {
  let url = `${baseUrl}${path}`;
  if (params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) search.set(key, String(value));
    }
    const query = search.toString();
    if (query) url += `${url.includes('?') ? '&' : '?'}${query}`;
  }
  return url;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

interface ClientConfig {
  baseUrl: string;
  /** Main client: cookies, bearer token, refresh and logout handling. */
  authenticated: boolean;
}

export function createApiClient({ baseUrl, authenticated }: ClientConfig): ApiClient {
  let refreshing: Promise<string> | null = null;

  /** One refresh at a time; concurrent callers share the same promise. */
  function refreshToken(): Promise<string> {
    if (!refreshing) {
      refreshing = (async () => {
        let response: Response;
        try {
          response = await fetch(buildUrl(baseUrl, '/auth/refresh_token'), {
            method: 'POST',
            credentials: 'include',
            headers: { Accept: 'application/json' },
          });
        } catch (cause) {
          throw new ApiError(0, 'ERR_NETWORK', cause instanceof Error ? cause.message : String(cause));
        }
        if (!response.ok) {
          const error = apiErrorFrom(response.status, await response.text());
          clearToken();
          logoutSignal.emit({ reason: 'refresh-failed' });
          throw error;
        }
        const body = (await readBody(response)) as { token?: unknown } | undefined;
        const token = typeof body?.token === 'string' ? body.token : null;
        if (!token) {
          clearToken();
          logoutSignal.emit({ reason: 'refresh-failed' });
          throw new ApiError(401, 'ERR_SESSION_EXPIRED', 'refresh returned no token');
        }
        setToken(token);
        refreshSignal.emit({ token, body });
        return token;
      })().finally(() => {
        refreshing = null;
      });
    }
    return refreshing;
  }

  async function send(method: string, url: string, body: unknown, signal: AbortSignal | undefined, accept: string): Promise<Response> {
    const headers: Record<string, string> = { Accept: accept };
    let payload: BodyInit | undefined;
    if (body instanceof FormData) {
      payload = body;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    if (authenticated) {
      const token = getToken();
      if (token) headers.Authorization = `Bearer ${token}`;
    }
    try {
      return await fetch(url, {
        method,
        headers,
        body: payload,
        signal,
        credentials: authenticated ? 'include' : 'omit',
      });
    } catch (cause) {
      if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
      throw new ApiError(0, 'ERR_NETWORK', cause instanceof Error ? cause.message : String(cause));
    }
  }

  /** Sends the request, refreshing once on an expired token; throws an ApiError unless 2xx. */
  async function exchange(method: string, path: string, options: RequestOptions<z.core.$ZodType | undefined>, accept: string): Promise<Response> {
    const url = buildUrl(baseUrl, path, options.params);
    let response = await send(method, url, options.body, options.signal, accept);

    if (authenticated && response.status === 403) {
      const error = apiErrorFrom(403, await response.text());
      if (error.code !== undefined && error.code !== 'ERR_TOKEN_EXPIRED') throw error;
      await refreshToken();
      response = await send(method, url, options.body, options.signal, accept);
    }

    if (!response.ok) {
      const error = apiErrorFrom(response.status, await response.text());
      if (authenticated && response.status === 401) {
        clearToken();
        logoutSignal.emit({ reason: 'unauthorized' });
      }
      if (authenticated && response.status === 402) subscriptionExpiredSignal.emit();
      throw error;
    }
    return response;
  }

  async function request<S extends z.core.$ZodType | undefined = undefined>(
    method: string,
    path: string,
    options: RequestOptions<S> = {},
  ): Promise<Result<S>> {
    const response = await exchange(method, path, options, 'application/json');
    const data = await readBody(response);
    if (options.schema) return parse(options.schema, data) as Result<S>;
    return data as Result<S>;
  }

  async function blob(path: string, options: Pick<RequestOptions, 'params' | 'signal'> = {}): Promise<Blob> {
    const response = await exchange('GET', path, options, '*/*');
    return response.blob();
  }

  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    put: (path, body, options) => request('PUT', path, { ...options, body }),
    delete: (path, options) => request('DELETE', path, options),
    blob,
  };
}

/** Authenticated client: cookies + bearer token + refresh. */
export const api = createApiClient({ baseUrl: API_BASE_URL, authenticated: true });
/** Public client: no credentials. */
export const publicApi = createApiClient({ baseUrl: API_BASE_URL, authenticated: false });
