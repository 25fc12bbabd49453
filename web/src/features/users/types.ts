import { z } from 'zod/mini';

const toggle = z.catch(z.enum(['enabled', 'disabled']), 'disabled');

/** A row of `GET /users/` and the body of `GET /users/{id}` (docs/api.md "Users"). */
export const userRecordSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  profile: z.catch(z.enum(['admin', 'user']), 'user'),
  super: z.nullish(z.boolean()),
  companyId: z.nullish(z.number()),
  online: z.nullish(z.boolean()),
  profileImage: z.nullish(z.string()),
  startWork: z.nullish(z.string()),
  endWork: z.nullish(z.string()),
  farewellMessage: z.nullish(z.string()),
  whatsappId: z.nullish(z.number()),
  queueIds: z.nullish(z.array(z.number())),
  queues: z.nullish(z.array(z.object({ id: z.number(), name: z.string(), color: z.nullish(z.string()) }))),
  allTicket: z._default(z.catch(z.enum(['enable', 'disable']), 'disable'), 'disable'),
  allowGroup: z._default(z.catch(z.boolean(), false), false),
  allHistoric: z._default(toggle, 'disabled'),
  allUserChat: z._default(toggle, 'disabled'),
  userClosePendingTicket: z._default(toggle, 'disabled'),
  showDashboard: z._default(toggle, 'disabled'),
  allowRealTime: z._default(toggle, 'disabled'),
  allowConnections: z._default(toggle, 'disabled'),
  defaultTheme: z._default(z.catch(z.enum(['light', 'dark']), 'light'), 'light'),
  defaultMenu: z._default(z.catch(z.enum(['open', 'closed']), 'open'), 'open'),
});
export type UserRecord = z.infer<typeof userRecordSchema>;

/** Ids of the queues a user belongs to, from either wire form. */
export function queueIdsOf(user: Pick<UserRecord, 'queueIds' | 'queues'>): number[] {
  return user.queueIds ?? user.queues?.map((queue) => queue.id) ?? [];
}
