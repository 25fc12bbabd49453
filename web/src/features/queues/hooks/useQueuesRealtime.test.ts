import { describe, expect, it } from 'vitest';
import { queueSchema } from '../types';
import { removeQueue, upsertQueue } from './useQueuesRealtime';

const q = (id: number, name: string) => queueSchema.parse({ id, name, color: '#000' });

describe('queue list updates', () => {
  it('replaces in place, appends new queues and removes by id', () => {
    const list = [q(1, 'A'), q(2, 'B')];
    expect(upsertQueue(list, q(2, 'B2'))?.map((x) => x.name)).toEqual(['A', 'B2']);
    expect(upsertQueue(list, q(3, 'C'))?.map((x) => x.id)).toEqual([1, 2, 3]);
    expect(removeQueue(list, 1)?.map((x) => x.id)).toEqual([2]);
    expect(upsertQueue(undefined, q(1, 'A'))).toBeUndefined();
  });
});
