/** A fetch mock routing "METHOD /path" to handlers, for component tests. */
import { vi } from 'vitest';

export interface MockRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
}

export type MockHandler = (request: MockRequest) => unknown;

export class MockResponse {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body?: unknown) {
    this.status = status;
    this.body = body;
  }
}

export function reply(status: number, body?: unknown): MockResponse {
  return new MockResponse(status, body);
}

export function mockServer(routes: Record<string, MockHandler>) {
  const requests: MockRequest[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : init.body;
    const request: MockRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      body,
      headers: (init.headers ?? {}) as Record<string, string>,
    };
    requests.push(request);
    const key = Object.keys(routes).find((pattern) => {
      const [m, p] = pattern.split(' ');
      if (m !== method) return false;
      const regex = new RegExp(`^${p.replace(/:[^/]+/g, '[^/]+')}$`);
      return regex.test(url.pathname);
    });
    if (!key) return new Response(JSON.stringify({ error: 'ERR_NOT_FOUND', message: `no mock for ${method} ${url.pathname}` }), { status: 404 });
    const result = routes[key](request);
    // A ready-made Response (an image...) goes out as is.
    if (result instanceof Response) return result;
    if (result instanceof MockResponse) {
      return new Response(result.body === undefined ? null : JSON.stringify(result.body), { status: result.status });
    }
    return new Response(result === undefined ? null : JSON.stringify(result), { status: result === undefined ? 204 : 200 });
  });
  vi.stubGlobal('fetch', fetch);
  return {
    fetch,
    requests,
    find: (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path),
  };
}
