import { describe, expect, it } from 'vitest';
import type { Connection } from '../types';
import { statusChanges, type SeenConnections } from './status-changes';

type Row = Pick<Connection, 'id' | 'name' | 'status' | 'downSince'>;
const row = (id: number, status: Row['status'], downSince: string | null = null): Row => ({ id, name: `Conexão ${id}`, status, downSince });

/** Reads `steps` one after the other, from nothing read; the changes of each reading. */
function readings(...steps: Row[][]) {
  let seen: SeenConnections | null = null;
  return steps.map((step) => {
    const result = statusChanges(seen, step);
    seen = result.seen;
    return result.changes.map((c) => `${c.kind} ${c.id}`);
  });
}

describe('statusChanges', () => {
  it('announces nothing on the first reading', () => {
    expect(readings([row(1, 'CONNECTED'), row(2, 'DISCONNECTED', '2026-11-29T10:01:00Z')])).toEqual([[]]);
  });

  it('announces a drop when a connection leaves CONNECTED, and its return', () => {
    expect(readings([row(1, 'CONNECTED')], [row(1, 'OPENING')], [row(1, 'DISCONNECTED')], [row(1, 'CONNECTED')], [row(1, 'CONNECTED')])).toEqual([
      [],
      ['dropped 1'],
      [],
      ['back 1'],
      [],
    ]);
  });

  it('announces the return of a connection already down at the first reading, by its downSince', () => {
    expect(readings([row(1, 'DISCONNECTED', '2026-11-29T10:01:00Z')], [row(1, 'OPENING', '2026-11-29T10:01:00Z')], [row(1, 'CONNECTED')])).toEqual([[], [], ['back 1']]);
  });

  it('does not call a first link a return, nor announce a connection not seen before', () => {
    expect(readings([row(1, 'qrcode')], [row(1, 'CONNECTED'), row(2, 'DISCONNECTED')])).toEqual([[], []]);
  });
});
