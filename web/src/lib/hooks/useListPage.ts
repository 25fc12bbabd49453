/**
 * The state every list page shares (contacts, tags, quick messages, schedules, users): the search
 * box (its text now, and the term sent once typing stopped for 500 ms, spec 1 §9), the infinite
 * query over that term, its rows page after page, the scroll handler that loads the next page
 * near the bottom (one at a time), and whether a page is on its way (the spinner under the
 * table). Realtime changes reach the rows through the query's cache (`lib/api/pages.ts`).
 */
import { useState, type UIEvent } from 'react';
import {
  useInfiniteQuery,
  type InfiniteData,
  type QueryKey,
  type UseInfiniteQueryOptions,
  type UseInfiniteQueryResult,
} from '@tanstack/react-query';
import { useDebouncedValue } from './useDebouncedValue';
import { useLoadMoreOnScroll } from './useNearBottom';

export const SEARCH_DELAY_MS = 500;

export interface ListPageOptions<TPage, TRow, TKey extends QueryKey, TParam> {
  /** The infinite query of a search term (the api module's `…InfiniteQuery`). */
  query: (term: string) => UseInfiniteQueryOptions<TPage, Error, InfiniteData<TPage>, TKey, TParam>;
  /** The rows of one page. */
  rows: (page: TPage) => readonly TRow[];
  /** The term sent for the box's text: trimmed unless said otherwise. */
  term?: (search: string) => string;
}

export interface ListPage<TPage, TRow> {
  /** The search box's text. */
  search: string;
  setSearch: (search: string) => void;
  /** The term the query was made with (the debounced, normalised text). */
  term: string;
  query: UseInfiniteQueryResult<InfiniteData<TPage>>;
  /** Every loaded page's rows, in order. */
  rows: TRow[];
  /** For the scrolling container: loads the next page near its bottom. */
  onScroll: (event: UIEvent<HTMLElement>) => void;
  /** The first page or a next one is on its way. */
  loading: boolean;
}

const trim = (search: string) => search.trim();

export function useListPage<TPage, TRow, TKey extends QueryKey, TParam>({
  query: queryOf,
  rows: rowsOf,
  term: termOf = trim,
}: ListPageOptions<TPage, TRow, TKey, TParam>): ListPage<TPage, TRow> {
  const [search, setSearch] = useState('');
  const term = useDebouncedValue(termOf(search), SEARCH_DELAY_MS);
  const query = useInfiniteQuery(queryOf(term));
  const onScroll = useLoadMoreOnScroll(query);
  const rows = query.data?.pages.flatMap((page) => [...rowsOf(page)]) ?? [];
  return { search, setSearch, term, query, rows, onScroll, loading: query.isPending || query.isFetchingNextPage };
}
