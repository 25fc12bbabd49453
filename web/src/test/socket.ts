/** A stand-in for socket.io-client: records emits and lets a test play server events. */
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => void;

export class FakeSocket {
  connected = true;
  listeners = new Map<string, Set<Listener>>();
  emitted: { event: string; args: unknown[] }[] = [];
  options: unknown;

  on(event: string, listener: Listener) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener);
    return this;
  }
  off(event: string, listener: Listener) {
    this.listeners.get(event)?.delete(listener);
    return this;
  }
  emit(event: string, ...args: unknown[]) {
    this.emitted.push({ event, args });
    return this;
  }
  removeAllListeners() {
    this.listeners.clear();
    return this;
  }
  disconnect() {
    this.connected = false;
    return this;
  }
  /** Plays an event as if the server had sent it. */
  serverEmit(event: string, ...args: unknown[]) {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }
}

export const sockets: FakeSocket[] = [];

export const ioMock = vi.fn((_url?: unknown, options?: unknown) => {
  const socket = new FakeSocket();
  socket.options = options;
  sockets.push(socket);
  return socket;
});

export function lastSocket(): FakeSocket {
  const socket = sockets[sockets.length - 1];
  if (!socket) throw new Error('no socket was opened');
  return socket;
}
