/**
 * Live updates of the users list from `company-{id}-user` (`{action, user | userId}`):
 * create and update upsert the row, delete removes it.
 */
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { usersKeys, type UsersPage } from '../api/get-users';
import { userRecordSchema, type UserRecord } from '../types';

interface UserEvent {
  action?: string;
  user?: unknown;
  userId?: number;
}

type UsersData = InfiniteData<UsersPage, number>;

export function upsertUser(data: UsersData | undefined, user: UserRecord, insertIfMissing: boolean): UsersData | undefined {
  if (!data) return data;
  const exists = data.pages.some((page) => page.users.some((u) => u.id === user.id));
  if (exists) {
    return { ...data, pages: data.pages.map((page) => ({ ...page, users: page.users.map((u) => (u.id === user.id ? { ...u, ...user } : u)) })) };
  }
  if (!insertIfMissing || data.pages.length === 0) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first, users: [user, ...first.users] }, ...rest] };
}

export function removeUser(data: UsersData | undefined, userId: number): UsersData | undefined {
  if (!data) return data;
  return { ...data, pages: data.pages.map((page) => ({ ...page, users: page.users.filter((u) => u.id !== userId) })) };
}

export function useUsersRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<UserEvent>('user', (event) => {
    if (event.action === 'delete') {
      const id = typeof event.userId === 'number' ? event.userId : userRecordSchema.safeParse(event.user).data?.id;
      if (id === undefined) return;
      for (const [key] of queryClient.getQueriesData<UsersData>({ queryKey: usersKeys.lists() })) {
        queryClient.setQueryData<UsersData>(key, (data) => removeUser(data, id));
      }
      queryClient.removeQueries({ queryKey: usersKeys.detail(id) });
      return;
    }
    if (event.action === 'create' || event.action === 'update') {
      const parsed = userRecordSchema.safeParse(event.user);
      if (!parsed.success) return;
      const user = parsed.data;
      for (const [key] of queryClient.getQueriesData<UsersData>({ queryKey: usersKeys.lists() })) {
        // A new user goes on top of the unfiltered list; searched lists keep their own order.
        const search = key[key.length - 1];
        queryClient.setQueryData<UsersData>(key, (data) => upsertUser(data, user, event.action === 'create' && search === ''));
      }
      queryClient.setQueryData(usersKeys.detail(user.id), user);
    }
  });
}
