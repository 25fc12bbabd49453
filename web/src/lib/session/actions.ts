/**
 * Starting, restoring and ending the session (spec 1 §4, §7).
 */
import { api, clearToken, getToken, logoutSignal, refreshSignal, setToken, subscriptionExpiredSignal } from '../api';
import { queryClient } from '../query-client';
import { sessionIdOf } from './jwt';
import { noteSessionEnded } from './notice';
import { authResponseSchema, meResponseSchema, type AuthResponse } from './schemas';
import { sessionStore } from './store';

/** Stores the token (localStorage when remembered, sessionStorage otherwise) and signs in. */
export function beginSession(response: AuthResponse, remember: boolean): void {
  setToken(response.token, remember);
  sessionStore.set({
    status: 'authenticated',
    user: response.user,
    permissions: response.permissions,
    subscription: response.subscription,
    sessionId: sessionIdOf(response.sessionId, response.token),
  });
}

/** Restores a session from a stored token with `GET /auth/me`. */
export async function restoreSession(): Promise<void> {
  const token = getToken();
  if (!token) {
    sessionStore.set({ status: 'anonymous' });
    return;
  }
  try {
    const me = await api.get('/auth/me', { schema: meResponseSchema });
    sessionStore.set({
      status: 'authenticated',
      user: me.user,
      permissions: me.permissions,
      subscription: me.subscription,
      sessionId: sessionIdOf(me.sessionId, getToken()),
    });
  } catch (error) {
    console.warn('could not restore the session', error);
    clearToken();
    sessionStore.set({ status: 'anonymous' });
  }
}

/** Forgets the session locally (token, cached data). */
export function endSession(): void {
  clearToken();
  queryClient.clear();
  sessionStore.set({ status: 'anonymous' });
}

/** `DELETE /auth/logout` then forgets the session, whatever the server answered. */
export async function logout(): Promise<void> {
  try {
    await api.delete('/auth/logout');
  } catch (error) {
    console.warn('logout call failed', error);
  } finally {
    endSession();
  }
}

let wired = false;
/** Keeps the session in step with the API client's refresh and logout signals. */
export function wireSessionSignals(): void {
  if (wired) return;
  wired = true;
  refreshSignal.on(({ token, body }) => {
    const parsed = authResponseSchema.safeParse(body);
    const current = sessionStore.get();
    if (!parsed.success || current.status !== 'authenticated') return;
    sessionStore.update({
      user: parsed.data.user,
      permissions: parsed.data.permissions,
      subscription: parsed.data.subscription,
      sessionId: sessionIdOf(parsed.data.sessionId, token) ?? current.sessionId,
    });
  });
  subscriptionExpiredSignal.on(() => {
    const current = sessionStore.get();
    if (current.status === 'authenticated' && current.subscription.status !== 'expired') {
      sessionStore.update({ subscription: { ...current.subscription, status: 'expired' } });
    }
  });
  logoutSignal.on(() => {
    if (sessionStore.get().status !== 'authenticated') return;
    // The server no longer accepts this session: the login page says so.
    noteSessionEnded();
    endSession();
  });
}
