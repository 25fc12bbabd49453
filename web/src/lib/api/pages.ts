/**
 * Paged lists (docs/api.md "Pagination"): the next page's parameter, and the changes realtime
 * events make to the pages a list has loaded (an infinite query's data), row by id.
 */
import type { InfiniteData } from '@tanstack/react-query';

/** The next page: `nextCursor` when the server gives one, else the next `pageNumber`. */
export type PageParam = { cursor: string } | { pageNumber: number };
export function nextPageParam(last: { hasMore: boolean; nextCursor?: string | null }, lastParam: PageParam): PageParam | undefined {
  if (!last.hasMore) return undefined;
  if (last.nextCursor) return { cursor: last.nextCursor };
  return { pageNumber: ('pageNumber' in lastParam ? lastParam.pageNumber : 1) + 1 };
}

type Row = { id: number };
/** Pages whose rows are under `key` (`{users: [...]}`, `{contacts: [...]}`). */
type Paged<K extends string> = { [P in K]: Row[] };
/** The rows' type of such pages. */
type RowOf<TPage extends Paged<K>, K extends string> = TPage[K][number];

/** `fn` applied to every loaded page's rows. */
export function mapPageRows<K extends string, TPage extends Paged<K>, TParam>(
  data: InfiniteData<TPage, TParam> | undefined,
  key: K,
  fn: (rows: RowOf<TPage, K>[]) => RowOf<TPage, K>[],
): InfiniteData<TPage, TParam> | undefined {
  return data ? { ...data, pages: data.pages.map((page) => ({ ...page, [key]: fn(page[key]) })) } : data;
}

/** Whether a loaded page holds the row `id`. */
export function hasPageRow<K extends string>(data: InfiniteData<Paged<K>, unknown> | undefined, key: K, id: number): boolean {
  return !!data?.pages.some((page) => page[key].some((row) => row.id === id));
}

/** The pages without the row `id`. */
export function removePageRow<K extends string, TPage extends Paged<K>, TParam>(
  data: InfiniteData<TPage, TParam> | undefined,
  key: K,
  id: number,
): InfiniteData<TPage, TParam> | undefined {
  return mapPageRows(data, key, (rows) => rows.filter((row) => row.id !== id));
}

/**
 * `patch`'s defined fields merged into the row with its id; when no page holds it, `top` (if
 * given) goes first on the first page. Lists that do not know the row otherwise stay as they are.
 */
export function upsertPageRow<K extends string, TPage extends Paged<K>, TParam>(
  data: InfiniteData<TPage, TParam> | undefined,
  key: K,
  patch: Partial<RowOf<TPage, K>> & Row,
  top: RowOf<TPage, K> | null = null,
): InfiniteData<TPage, TParam> | undefined {
  if (!data) return data;
  if (hasPageRow(data, key, patch.id)) {
    const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    return mapPageRows(data, key, (rows) => rows.map((row) => (row.id === patch.id ? { ...row, ...defined } : row)));
  }
  if (!top || data.pages.length === 0) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first, [key]: [top, ...first[key]] }, ...rest] };
}
