/** Wire shapes of the session (docs/api.md "Auth"). Lenient: unknown values fall back to defaults. */
import { z } from 'zod';

const toggle = z.enum(['enabled', 'disabled']).catch('disabled');

export const companySummarySchema = z.object({
  id: z.number(),
  name: z.string().catch(''),
  dueDate: z.string().nullish(),
  document: z.string().nullish(),
  addressStreet: z.string().nullish(),
  addressState: z.string().nullish(),
  addressCity: z.string().nullish(),
});

export const queueSummarySchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.string().nullish(),
});
export type QueueSummary = z.infer<typeof queueSummarySchema>;

export const userSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  profile: z.enum(['admin', 'user']).catch('user'),
  super: z.boolean().catch(false).default(false),
  companyId: z.number(),
  company: companySummarySchema.nullish(),
  startWork: z.string().nullish(),
  endWork: z.string().nullish(),
  farewellMessage: z.string().nullish(),
  allTicket: z.enum(['enable', 'disable']).catch('disable').default('disable'),
  allowGroup: z.boolean().catch(false).default(false),
  defaultTheme: z.enum(['light', 'dark']).catch('light').default('light'),
  defaultMenu: z.enum(['open', 'closed']).catch('open').default('open'),
  allHistoric: toggle.default('disabled'),
  allUserChat: toggle.default('disabled'),
  userClosePendingTicket: toggle.default('disabled'),
  showDashboard: toggle.default('disabled'),
  allowRealTime: toggle.default('disabled'),
  allowConnections: toggle.default('disabled'),
  whatsappId: z.number().nullish(),
  queues: z.array(queueSummarySchema).nullish(),
  queueIds: z.array(z.number()).nullish(),
  profileImage: z.string().nullish(),
  online: z.boolean().nullish(),
  defaultTicketsManagerWidth: z.number().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type User = z.infer<typeof userSchema>;

export const subscriptionSchema = z.object({
  status: z.enum(['active', 'warning', 'expired']).catch('active'),
  dueDate: z.string().nullish(),
  daysLeft: z.number().nullish(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

const permissionsSchema = z.array(z.string()).catch([]).default([]);
const defaultSubscription: Subscription = { status: 'active' };

/** `POST /auth/login` and `POST /auth/refresh_token`. */
export const authResponseSchema = z.object({
  token: z.string(),
  user: userSchema,
  permissions: permissionsSchema,
  subscription: subscriptionSchema.catch(defaultSubscription).default(defaultSubscription),
  /** Our session id, to tell our own sign-in apart from one elsewhere (see README). */
  sessionId: z.string().nullish(),
});
export type AuthResponse = z.infer<typeof authResponseSchema>;

/** `GET /auth/me`. */
export const meResponseSchema = z.object({
  user: userSchema,
  permissions: permissionsSchema,
  subscription: subscriptionSchema.catch(defaultSubscription).default(defaultSubscription),
  sessionId: z.string().nullish(),
});
export type MeResponse = z.infer<typeof meResponseSchema>;
