/** `GET /users/?searchParam=&pageNumber=` → `{users, count, hasMore}` (pages of 20, from 1). */
import { infiniteQueryOptions } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { userRecordSchema } from '../types';
import { usersKeys } from './keys';

export const usersPageSchema = z.object({
  users: z.array(userRecordSchema),
  count: z.nullish(z.number()),
  hasMore: z.catch(z.boolean(), false),
});
export type UsersPage = z.infer<typeof usersPageSchema>;

export function getUsers(searchParam: string, pageNumber: number, signal?: AbortSignal): Promise<UsersPage> {
  return api.get('/users/', { params: { searchParam, pageNumber }, schema: usersPageSchema, signal });
}

export { usersKeys };

export const usersInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: usersKeys.list(search),
    queryFn: ({ pageParam, signal }) => getUsers(search, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastPageParam) => (last.hasMore ? lastPageParam + 1 : undefined),
  });
