import { useCallback, type UIEvent } from 'react';

/** Infinite scroll: calls `onNearBottom` when the element is scrolled within `threshold` px of its end. */
export function nearBottom(element: Pick<HTMLElement, 'scrollHeight' | 'scrollTop' | 'clientHeight'>, threshold = 100): boolean {
  return element.scrollHeight - element.scrollTop - element.clientHeight < threshold;
}

export function useNearBottom(onNearBottom: () => void, threshold = 100) {
  return useCallback(
    (event: UIEvent<HTMLElement>) => {
      if (nearBottom(event.currentTarget, threshold)) onNearBottom();
    },
    [onNearBottom, threshold],
  );
}

/** Infinite scroll over an infinite query: fetches its next page near the bottom, one at a time. */
export function useLoadMoreOnScroll(
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> },
  threshold = 100,
) {
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return useNearBottom(loadMore, threshold);
}
