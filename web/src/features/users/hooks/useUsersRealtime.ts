/**
 * Live updates of the users list from `company-{id}-user`:
 * `{action: "create" | "update", user}` and `{action: "delete", userId}`.
 *
 * The event's `user` may be the summary every member of the company may see
 * (`{id, name, profile, online, profileImage}`) rather than the full row: rows are upserted with
 * what the event carries, and the lists refetch in the background for the rest (e-mail, hours...).
 */
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { removePageRow, upsertPageRow } from '../../../lib/api/pages';
import { useCompanyEvent } from '../../../lib/socket';
import { usersKeys, type UsersPage } from '../api/get-users';
import { userRecordSchema, type UserRecord } from '../types';

interface UserEvent {
  action?: string;
  user?: unknown;
  userId?: number;
}

type UsersData = InfiniteData<UsersPage, number>;

/** What any user event carries about a user. */
const userPatchSchema = z.object({
  id: z.number(),
  name: z.optional(z.string()),
  email: z.optional(z.string()),
  profile: z.optional(z.enum(['admin', 'user'])),
  online: z.nullish(z.boolean()),
  profileImage: z.nullish(z.string()),
});
type UserPatch = z.infer<typeof userPatchSchema>;

/** Merges `patch` into the row with its id; inserts `full` on top when missing and given. */
export function upsertUser(data: UsersData | undefined, patch: UserPatch, full: UserRecord | null): UsersData | undefined {
  return upsertPageRow(data, 'users', patch, full);
}

export function removeUser(data: UsersData | undefined, userId: number): UsersData | undefined {
  return removePageRow(data, 'users', userId);
}

export function useUsersRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<UserEvent>('user', (event) => {
    const lists = queryClient.getQueriesData<UsersData>({ queryKey: usersKeys.lists() });
    if (event.action === 'delete') {
      const id = typeof event.userId === 'number' ? event.userId : userPatchSchema.safeParse(event.user).data?.id;
      if (id === undefined) return;
      for (const [key] of lists) queryClient.setQueryData<UsersData>(key, (data) => removeUser(data, id));
      queryClient.removeQueries({ queryKey: usersKeys.detail(id) });
      return;
    }
    if (event.action !== 'create' && event.action !== 'update') return;
    const patch = userPatchSchema.safeParse(event.user);
    if (!patch.success) return;
    const full = userRecordSchema.safeParse(event.user);
    for (const [key] of lists) {
      // A new user goes on top of the unfiltered list; searched lists keep their own order.
      const search = key[key.length - 1];
      const insert = event.action === 'create' && search === '' && full.success ? full.data : null;
      queryClient.setQueryData<UsersData>(key, (data) => upsertUser(data, patch.data, insert));
    }
    if (!full.success) {
      void queryClient.invalidateQueries({ queryKey: usersKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: usersKeys.detail(patch.data.id) });
    } else {
      queryClient.setQueryData(usersKeys.detail(full.data.id), full.data);
    }
  });
}
