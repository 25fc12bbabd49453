/** Wire shapes of the session (docs/api.md "Auth"). Lenient: unknown values fall back to defaults. */
import { z } from 'zod/mini';

const toggle = z.catch(z.enum(['enabled', 'disabled']), 'disabled');

export const companySummarySchema = z.object({
  id: z.number(),
  name: z.catch(z.string(), ''),
  dueDate: z.nullish(z.string()),
  document: z.nullish(z.string()),
  addressStreet: z.nullish(z.string()),
  addressState: z.nullish(z.string()),
  addressCity: z.nullish(z.string()),
});

export const queueSummarySchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.nullish(z.string()),
});
export type QueueSummary = z.infer<typeof queueSummarySchema>;

export const userSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  profile: z.catch(z.enum(['admin', 'user']), 'user'),
  super: z._default(z.catch(z.boolean(), false), false),
  companyId: z.number(),
  company: z.nullish(companySummarySchema),
  startWork: z.nullish(z.string()),
  endWork: z.nullish(z.string()),
  farewellMessage: z.nullish(z.string()),
  allTicket: z._default(z.catch(z.enum(['enable', 'disable']), 'disable'), 'disable'),
  allowGroup: z._default(z.catch(z.boolean(), false), false),
  defaultTheme: z._default(z.catch(z.enum(['light', 'dark']), 'light'), 'light'),
  defaultMenu: z._default(z.catch(z.enum(['open', 'closed']), 'open'), 'open'),
  allHistoric: z._default(toggle, 'disabled'),
  allUserChat: z._default(toggle, 'disabled'),
  userClosePendingTicket: z._default(toggle, 'disabled'),
  showDashboard: z._default(toggle, 'disabled'),
  allowRealTime: z._default(toggle, 'disabled'),
  allowConnections: z._default(toggle, 'disabled'),
  whatsappId: z.nullish(z.number()),
  queues: z.nullish(z.array(queueSummarySchema)),
  queueIds: z.nullish(z.array(z.number())),
  profileImage: z.nullish(z.string()),
  online: z.nullish(z.boolean()),
  defaultTicketsManagerWidth: z.nullish(z.number()),
  createdAt: z.nullish(z.string()),
  updatedAt: z.nullish(z.string()),
});
export type User = z.infer<typeof userSchema>;

export const subscriptionSchema = z.object({
  status: z.catch(z.enum(['active', 'warning', 'expired']), 'active'),
  dueDate: z.nullish(z.string()),
  daysLeft: z.nullish(z.number()),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

const permissionsSchema = z._default(z.catch(z.array(z.string()), []), []);
const defaultSubscription: Subscription = { status: 'active' };
const sessionSubscriptionSchema = z._default(z.catch(subscriptionSchema, defaultSubscription), defaultSubscription);

/** `POST /auth/login` and `POST /auth/refresh_token`. */
export const authResponseSchema = z.object({
  token: z.string(),
  user: userSchema,
  permissions: permissionsSchema,
  subscription: sessionSubscriptionSchema,
  /** Our session id, to tell our own sign-in apart from one elsewhere (see README). */
  sessionId: z.nullish(z.string()),
});
export type AuthResponse = z.infer<typeof authResponseSchema>;

/** `GET /auth/me`. */
export const meResponseSchema = z.object({
  user: userSchema,
  permissions: permissionsSchema,
  subscription: sessionSubscriptionSchema,
  sessionId: z.nullish(z.string()),
});
export type MeResponse = z.infer<typeof meResponseSchema>;
