/**
 * The signed-in session: user, capabilities and subscription. A small external store read with
 * `useSyncExternalStore`; the API client's signals keep it current.
 */
import { useSyncExternalStore } from 'react';
import type { Subscription, User } from './schemas';

export type SessionState =
  | { status: 'loading' }
  | { status: 'anonymous' }
  | {
      status: 'authenticated';
      user: User;
      permissions: string[];
      subscription: Subscription;
      sessionId: string | null;
    };

export type AuthenticatedSession = Extract<SessionState, { status: 'authenticated' }>;

let state: SessionState = { status: 'loading' };
const listeners = new Set<() => void>();

export const sessionStore = {
  get(): SessionState {
    return state;
  },
  set(next: SessionState): void {
    state = next;
    for (const listener of [...listeners]) listener();
  },
  /** Updates the signed-in session; ignored when nobody is signed in. */
  update(patch: Partial<Omit<AuthenticatedSession, 'status'>>): void {
    if (state.status !== 'authenticated') return;
    sessionStore.set({ ...state, ...patch });
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.get, sessionStore.get);
}

/** The signed-in session; only call below a route guard that requires one. */
export function useAuthenticatedSession(): AuthenticatedSession {
  const session = useSession();
  if (session.status !== 'authenticated') throw new Error('useAuthenticatedSession outside an authenticated route');
  return session;
}

export function hasCapability(session: SessionState, capability: string): boolean {
  return session.status === 'authenticated' && session.permissions.includes(capability);
}

export function useCan(capability: string): boolean {
  return hasCapability(useSession(), capability);
}
