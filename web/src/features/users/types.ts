import { z } from 'zod';

const toggle = z.enum(['enabled', 'disabled']).catch('disabled');

/** A row of `GET /users/` and the body of `GET /users/{id}` (docs/api.md "Users"). */
export const userRecordSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  profile: z.enum(['admin', 'user']).catch('user'),
  super: z.boolean().nullish(),
  companyId: z.number().nullish(),
  online: z.boolean().nullish(),
  profileImage: z.string().nullish(),
  startWork: z.string().nullish(),
  endWork: z.string().nullish(),
  farewellMessage: z.string().nullish(),
  whatsappId: z.number().nullish(),
  queueIds: z.array(z.number()).nullish(),
  queues: z.array(z.object({ id: z.number(), name: z.string(), color: z.string().nullish() })).nullish(),
  allTicket: z.enum(['enable', 'disable']).catch('disable').default('disable'),
  allowGroup: z.boolean().catch(false).default(false),
  allHistoric: toggle.default('disabled'),
  allUserChat: toggle.default('disabled'),
  userClosePendingTicket: toggle.default('disabled'),
  showDashboard: toggle.default('disabled'),
  allowRealTime: toggle.default('disabled'),
  allowConnections: toggle.default('disabled'),
  defaultTheme: z.enum(['light', 'dark']).catch('light').default('light'),
  defaultMenu: z.enum(['open', 'closed']).catch('open').default('open'),
});
export type UserRecord = z.infer<typeof userRecordSchema>;

/** Ids of the queues a user belongs to, from either wire form. */
export function queueIdsOf(user: Pick<UserRecord, 'queueIds' | 'queues'>): number[] {
  return user.queueIds ?? user.queues?.map((queue) => queue.id) ?? [];
}
