/**
 * The schedules page's list (docs/schedules.md): `GET /schedules?searchParam=&pageNumber=&contactId=`
 * and `DELETE /schedules/{id}`. Creating and editing one is `lib/schedules/form.ts`.
 */
import { infiniteQueryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { scheduleSchema, schedulesKeys } from '../../../lib/schedules/schedule';

export const schedulesPageSchema = z.object({
  schedules: z.array(scheduleSchema),
  count: z.nullish(z.number()),
  hasMore: z.catch(z.boolean(), false),
});

/** `GET /schedules?searchParam=&pageNumber=`, 20 a page, by next send time. */
export const schedulesInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: schedulesKeys.list(search),
    queryFn: ({ pageParam, signal }) => api.get('/schedules', { params: { searchParam: search, pageNumber: pageParam }, schema: schedulesPageSchema, signal }),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
  });

export function useDeleteSchedule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/schedules/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: schedulesKeys.all }),
  });
}
