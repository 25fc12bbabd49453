/**
 * Inbound failures (docs/api.md "Inbound failures"): events a channel delivered that could not be
 * stored and were set aside. `GET /inbound-failures?pageNumber=` (20 a page, newest first),
 * `POST /inbound-failures/{id}/retry`, `DELETE /inbound-failures/{id}`. Admins only.
 */
import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';

/** The kept event (core/src/inbox/channel.rs `InboundEvent`, tagged by `type`); only what the list shows is read. */
export const inboundEventSchema = z.looseObject({
  type: z.string(),
  chat: z.nullish(z.string()),
  chatName: z.nullish(z.string()),
  body: z.nullish(z.string()),
  emoji: z.nullish(z.string()),
  media: z.nullish(z.looseObject({ fileName: z.nullish(z.string()) })),
});
export type InboundEvent = z.infer<typeof inboundEventSchema>;

/** One failure (core/src/inbox/inbound.rs `InboundFailure`). */
export const inboundFailureSchema = z.object({
  id: z.number(),
  whatsappId: z.number(),
  event: inboundEventSchema,
  /** The catalogue code (`ERR_VALIDATION`, `ERR_INTERNAL`...). */
  error: z.string(),
  detail: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  attempts: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type InboundFailure = z.infer<typeof inboundFailureSchema>;

export const inboundFailurePageSchema = z.object({
  failures: z.array(inboundFailureSchema),
  count: z.number(),
  hasMore: z.catch(z.boolean(), false),
});
export type InboundFailurePage = z.infer<typeof inboundFailurePageSchema>;

export const retryOutcomeSchema = z.object({
  delivered: z.boolean(),
  failure: z.pipe(z.nullish(inboundFailureSchema), z.transform((v) => v ?? null)),
});
export type RetryOutcome = z.infer<typeof retryOutcomeSchema>;

export const inboundFailuresKeys = {
  all: ['inbound-failures'] as const,
  list: () => [...inboundFailuresKeys.all, 'list'] as const,
};

export function getInboundFailures(pageNumber: number, signal?: AbortSignal): Promise<InboundFailurePage> {
  return api.get('/inbound-failures', { params: { pageNumber }, schema: inboundFailurePageSchema, signal });
}

export function retryInboundFailure(id: number): Promise<RetryOutcome> {
  return api.post(`/inbound-failures/${id}/retry`, undefined, { schema: retryOutcomeSchema });
}

export function discardInboundFailure(id: number): Promise<unknown> {
  return api.delete(`/inbound-failures/${id}`);
}

export const inboundFailuresInfiniteQuery = () =>
  infiniteQueryOptions({
    queryKey: inboundFailuresKeys.list(),
    queryFn: ({ pageParam, signal }) => getInboundFailures(pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
  });

/** The company's failures, page by page (the first page's `count` is the total). */
export function useInboundFailures(enabled = true) {
  return useInfiniteQuery({ ...inboundFailuresInfiniteQuery(), enabled, retry: false });
}

type Pages = InfiniteData<InboundFailurePage, number>;

/** Drops a failure from the cached pages (and from the count). */
export function withoutFailure(data: Pages | undefined, id: number): Pages | undefined {
  if (!data) return data;
  const had = data.pages.some((page) => page.failures.some((f) => f.id === id));
  if (!had) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, count: Math.max(0, page.count - 1), failures: page.failures.filter((f) => f.id !== id) })),
  };
}

/** Replaces a failure in the cached pages. */
export function withFailure(data: Pages | undefined, failure: InboundFailure): Pages | undefined {
  if (!data) return data;
  return { ...data, pages: data.pages.map((page) => ({ ...page, failures: page.failures.map((f) => (f.id === failure.id ? failure : f)) })) };
}

/** Retries one: delivered, it leaves the list; failing again, its row is updated. The count is refetched. */
export function useRetryInboundFailure() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => retryInboundFailure(id),
    onSuccess: (outcome, id) => {
      queryClient.setQueryData<Pages>(inboundFailuresKeys.list(), (data) =>
        outcome.delivered || !outcome.failure ? withoutFailure(data, id) : withFailure(data, outcome.failure),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: inboundFailuresKeys.all }),
  });
}

/** Discards one; it leaves the list and the count is refetched. */
export function useDiscardInboundFailure() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => discardInboundFailure(id),
    onSuccess: (_, id) => queryClient.setQueryData<Pages>(inboundFailuresKeys.list(), (data) => withoutFailure(data, id)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: inboundFailuresKeys.all }),
  });
}
