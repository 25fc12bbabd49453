/** `GET /users/?searchParam=&pageNumber=` → `{users, count, hasMore}` (pages of 20, from 1). */
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api';
import { userRecordSchema } from '../types';

export const usersPageSchema = z.object({
  users: z.array(userRecordSchema),
  count: z.number().nullish(),
  hasMore: z.boolean().catch(false),
});
export type UsersPage = z.infer<typeof usersPageSchema>;

export function getUsers(searchParam: string, pageNumber: number, signal?: AbortSignal): Promise<UsersPage> {
  return api.get('/users/', { params: { searchParam, pageNumber }, schema: usersPageSchema, signal });
}

export const usersKeys = {
  all: ['users'] as const,
  lists: () => [...usersKeys.all, 'list'] as const,
  list: (search: string) => [...usersKeys.lists(), search] as const,
  detail: (id: number) => [...usersKeys.all, 'detail', id] as const,
};

export const usersInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: usersKeys.list(search),
    queryFn: ({ pageParam, signal }) => getUsers(search, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastPageParam) => (last.hasMore ? lastPageParam + 1 : undefined),
  });

export function useUsers(search: string) {
  return useInfiniteQuery(usersInfiniteQuery(search));
}
