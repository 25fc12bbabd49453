/**
 * Where the access token lives: localStorage `token` when the user asked to be remembered,
 * sessionStorage `token` otherwise.
 */
const KEY = 'token';

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

export function getToken(): string | null {
  return safe(() => localStorage.getItem(KEY) ?? sessionStorage.getItem(KEY), null);
}

/** Stores a token. `remember` picks localStorage; when omitted, keeps the current location. */
export function setToken(token: string, remember?: boolean): void {
  safe(() => {
    const persist = remember ?? sessionStorage.getItem(KEY) === null;
    if (persist) {
      localStorage.setItem(KEY, token);
      sessionStorage.removeItem(KEY);
    } else {
      sessionStorage.setItem(KEY, token);
      localStorage.removeItem(KEY);
    }
  }, undefined);
}

export function clearToken(): void {
  safe(() => {
    localStorage.removeItem(KEY);
    sessionStorage.removeItem(KEY);
  }, undefined);
}
