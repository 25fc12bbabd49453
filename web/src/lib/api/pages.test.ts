import { describe, expect, it } from 'vitest';
import type { InfiniteData } from '@tanstack/react-query';
import { hasPageRow, mapPageRows, nextPageParam, removePageRow, upsertPageRow, type PageParam } from './pages';

type Row = { id: number; name: string; online?: boolean };
type Page = { users: Row[]; hasMore: boolean };

const data = (): InfiniteData<Page, number> => ({
  pages: [
    { users: [{ id: 1, name: 'Ana' }, { id: 2, name: 'Bia', online: true }], hasMore: true },
    { users: [{ id: 3, name: 'Caio' }], hasMore: false },
  ],
  pageParams: [1, 2],
});
const ids = (value: InfiniteData<Page, number> | undefined) => value?.pages.map((page) => page.users.map((row) => row.id));

describe('loaded pages', () => {
  it('finds, maps and removes rows on every page', () => {
    expect(hasPageRow(data(), 'users', 3)).toBe(true);
    expect(hasPageRow(data(), 'users', 9)).toBe(false);
    expect(hasPageRow(undefined, 'users', 1)).toBe(false);
    expect(ids(mapPageRows(data(), 'users', (rows) => [...rows].reverse()))).toEqual([[2, 1], [3]]);
    expect(ids(removePageRow(data(), 'users', 2))).toEqual([[1], [3]]);
    expect(removePageRow(undefined, 'users', 2)).toBeUndefined();
  });

  it("merges a patch's defined fields into a known row, wherever it is", () => {
    const next = upsertPageRow(data(), 'users', { id: 2, name: 'Beatriz', online: undefined });
    expect(next?.pages[0].users[1]).toEqual({ id: 2, name: 'Beatriz', online: true });
    expect(next?.pages[1]).toEqual(data().pages[1]);
    expect(next?.pageParams).toEqual([1, 2]);
  });

  it('puts an unknown row on top of the first page only when given one', () => {
    expect(ids(upsertPageRow(data(), 'users', { id: 4 }, { id: 4, name: 'Davi' }))).toEqual([[4, 1, 2], [3]]);
    expect(upsertPageRow(data(), 'users', { id: 4, name: 'Davi' })).toEqual(data());
    const none = undefined as InfiniteData<Page, number> | undefined;
    expect(upsertPageRow(none, 'users', { id: 4 }, { id: 4, name: 'Davi' })).toBeUndefined();
  });
});

describe('nextPageParam', () => {
  it('follows the cursor when the server gives one, else counts pages, and stops at the end', () => {
    const first: PageParam = { pageNumber: 1 };
    expect(nextPageParam({ hasMore: true, nextCursor: 'abc' }, first)).toEqual({ cursor: 'abc' });
    expect(nextPageParam({ hasMore: true, nextCursor: null }, first)).toEqual({ pageNumber: 2 });
    expect(nextPageParam({ hasMore: true }, { cursor: 'abc' })).toEqual({ pageNumber: 2 });
    expect(nextPageParam({ hasMore: false, nextCursor: 'abc' }, first)).toBeUndefined();
  });
});
