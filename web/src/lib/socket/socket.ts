/**
 * The realtime connection (docs/api.md "Realtime"): socket.io on the same origin, `auth: {token}`,
 * unlimited reconnection 1000 ms apart, `joinNotification` and `userStatus` on every connect
 * (the server marks the user online only on `userStatus`) and `userStatus` every 300000 ms while
 * connected.
 *
 * socket.io-client is a chunk of its own, imported when the connection is opened (after the first
 * render, from `SessionEffects`): the first screen does not wait for it, and until it is in,
 * `getSocket()` is null as before a sign-in (`useCompanyEvent` subscribes once it is there).
 */
import type { Socket } from 'socket.io-client';
import { API_BASE_URL, getToken } from '../api';

export const USER_STATUS_INTERVAL_MS = 300_000;
export const RECONNECT_DELAY_MS = 1000;

let socket: Socket | null = null;
let heartbeat: ReturnType<typeof setInterval> | null = null;
const listeners = new Set<(socket: Socket | null) => void>();

function notify(): void {
  for (const listener of [...listeners]) listener(socket);
}

/** Bumped by every disconnect: a connection still loading its library is then not opened. */
let generation = 0;
/** The generation whose connection is loading, if one is. */
let loading: number | null = null;

/** Opens the connection (once) as soon as socket.io-client is loaded. */
export function connectSocket(userId: number): void {
  if (socket || loading === generation) return;
  const mine = generation;
  loading = mine;
  import('socket.io-client').then(
    ({ io }) => {
      if (mine !== generation || socket) return;
      loading = null;
      const created = io(API_BASE_URL || undefined, {
        // The token is read on every (re)connection, so a refreshed token is used.
        auth: (cb) => cb({ token: getToken() ?? '' }),
        query: { userId: String(userId) },
        transports: ['websocket', 'polling'],
        reconnection: true,
        reconnectionAttempts: Infinity,
        reconnectionDelay: RECONNECT_DELAY_MS,
        reconnectionDelayMax: RECONNECT_DELAY_MS,
        withCredentials: true,
      });
      created.on('connect', () => {
        created.emit('joinNotification');
        created.emit('userStatus');
      });
      heartbeat = setInterval(() => {
        if (created.connected) created.emit('userStatus');
      }, USER_STATUS_INTERVAL_MS);
      socket = created;
      notify();
    },
    (error: unknown) => {
      // Offline or a newer deployment: the app works without realtime until the next sign-in.
      if (mine === generation) loading = null;
      console.warn('could not load the realtime client', error);
    },
  );
}

export function disconnectSocket(): void {
  generation += 1;
  loading = null;
  if (heartbeat) clearInterval(heartbeat);
  heartbeat = null;
  if (socket) {
    socket.removeAllListeners();
    socket.disconnect();
  }
  socket = null;
  notify();
}

export function getSocket(): Socket | null {
  return socket;
}

export function onSocketChange(listener: (socket: Socket | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
