import { describe, expect, it } from 'vitest';
import { act, renderHook, waitFor } from '@testing-library/react';
import { infiniteQueryOptions, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode, UIEvent } from 'react';
import { useListPage } from './useListPage';

/** A server of `count` names, three a page, searched by substring; it records what it was asked. */
function namesServer(count: number) {
  const names = Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `Name ${i + 1}` }));
  const asked: { term: string; page: number }[] = [];
  let gate: Promise<void> | null = null;
  /** Holds the answers until the returned function is called. */
  const hold = () => {
    let release = () => {};
    gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      gate = null;
      release();
    };
  };
  const query = (term: string) =>
    infiniteQueryOptions({
      queryKey: ['names', term],
      queryFn: async ({ pageParam }) => {
        asked.push({ term, page: pageParam });
        if (gate) await gate;
        const found = names.filter((row) => row.name.toLowerCase().includes(term));
        return { rows: found.slice((pageParam - 1) * 3, pageParam * 3), hasMore: found.length > pageParam * 3 };
      },
      initialPageParam: 1,
      getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
    });
  return { asked, hold, query };
}

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

/** A scroll event of a container `fromBottom` px above its end. */
function scrolled(fromBottom: number): UIEvent<HTMLElement> {
  return { currentTarget: { scrollHeight: 1000, clientHeight: 400, scrollTop: 600 - fromBottom } } as unknown as UIEvent<HTMLElement>;
}

describe('useListPage', () => {
  it('loads the first page of the empty search and shows its rows', async () => {
    const server = namesServer(5);
    const { result } = renderHook(() => useListPage({ query: server.query, rows: (page) => page.rows }), { wrapper });
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.rows.map((row) => row.id)).toEqual([1, 2, 3]);
    expect(server.asked).toEqual([{ term: '', page: 1 }]);
  });

  it('sends the trimmed search once typing stopped, not at every key', async () => {
    const server = namesServer(5);
    const { result } = renderHook(() => useListPage({ query: server.query, rows: (page) => page.rows }), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    act(() => result.current.setSearch(' 4'));
    act(() => result.current.setSearch(' 4 '));
    // The box shows the text at once; the term follows after the delay.
    expect(result.current.search).toBe(' 4 ');
    expect(result.current.term).toBe('');
    await waitFor(() => expect(result.current.term).toBe('4'));
    await waitFor(() => expect(result.current.rows.map((row) => row.id)).toEqual([4]));
    expect(server.asked).toEqual([
      { term: '', page: 1 },
      { term: '4', page: 1 },
    ]);
  });

  it('normalises the term as the page says', async () => {
    const server = namesServer(5);
    const { result } = renderHook(() => useListPage({ query: server.query, rows: (page) => page.rows, term: (text) => text.trim().toLowerCase() }), { wrapper });
    act(() => result.current.setSearch('NAME 2 '));
    await waitFor(() => expect(result.current.term).toBe('name 2'));
    await waitFor(() => expect(result.current.rows.map((row) => row.id)).toEqual([2]));
  });

  it('loads the next page near the bottom, once, and stops at the last', async () => {
    const server = namesServer(7);
    const { result } = renderHook(() => useListPage({ query: server.query, rows: (page) => page.rows }), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));

    act(() => result.current.onScroll(scrolled(500)));
    expect(result.current.query.isFetchingNextPage).toBe(false);

    const release = server.hold();
    act(() => result.current.onScroll(scrolled(50)));
    await waitFor(() => expect(result.current.loading).toBe(true));
    // A second scroll while the page is on its way asks for nothing more.
    act(() => result.current.onScroll(scrolled(10)));
    release();
    await waitFor(() => expect(result.current.rows.map((row) => row.id)).toEqual([1, 2, 3, 4, 5, 6]));

    act(() => result.current.onScroll(scrolled(50)));
    await waitFor(() => expect(result.current.rows).toHaveLength(7));
    expect(result.current.query.hasNextPage).toBe(false);
    act(() => result.current.onScroll(scrolled(50)));
    expect(result.current.query.isFetchingNextPage).toBe(false);
    expect(server.asked.map((ask) => ask.page)).toEqual([1, 2, 3]);
  });
});
