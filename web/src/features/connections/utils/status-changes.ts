/**
 * What the connection alert announces (docs/channels.md "Gaps after an outage": "a notice tells
 * them when a connection drops and when it is back"): the changes of status between two readings
 * of the connections, as the cache holds them (the socket's `whatsapp` and `whatsappSession`
 * updates write it). Pure, so the rules are tested apart from the toasts.
 */
import type { Connection, ConnectionStatus } from '../types';

/** What is remembered of a connection between two readings. */
export interface SeenConnection {
  status: ConnectionStatus;
  /** Not CONNECTED after having been: the server says since when (`downSince`), or it was seen dropping. */
  down: boolean;
}
export type SeenConnections = ReadonlyMap<number, SeenConnection>;

export type StatusChangeKind = 'dropped' | 'back';
export interface StatusChange {
  kind: StatusChangeKind;
  id: number;
  name: string;
}

/**
 * The changes from `seen` (null: nothing read yet, the first load, which announces nothing) to
 * `connections`, and what to remember next. A connection drops when it leaves CONNECTED; it is
 * back when it is CONNECTED again after being down (a connection linked for the first time is
 * not "back"). A connection not seen before announces nothing.
 */
export function statusChanges(seen: SeenConnections | null, connections: readonly Pick<Connection, 'id' | 'name' | 'status' | 'downSince'>[]): { changes: StatusChange[]; seen: Map<number, SeenConnection> } {
  const changes: StatusChange[] = [];
  const next = new Map<number, SeenConnection>();
  for (const connection of connections) {
    const before = seen?.get(connection.id);
    const connected = connection.status === 'CONNECTED';
    if (before) {
      if (before.status === 'CONNECTED' && !connected) changes.push({ kind: 'dropped', id: connection.id, name: connection.name });
      else if (before.status !== 'CONNECTED' && connected && before.down) changes.push({ kind: 'back', id: connection.id, name: connection.name });
    }
    const down = !connected && (!!connection.downSince || before?.status === 'CONNECTED' || !!before?.down);
    next.set(connection.id, { status: connection.status, down });
  }
  return { changes, seen: next };
}
