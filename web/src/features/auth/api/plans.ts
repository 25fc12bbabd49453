/** `GET /plans/list` (public) → the plans offered on the signup page. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { publicApi } from '../../../lib/api';

export const planSchema = z.object({
  id: z.number(),
  name: z.string(),
  users: z.nullish(z.number()),
  connections: z.nullish(z.number()),
  queues: z.nullish(z.number()),
  amount: z.nullish(z.coerce.number()),
});
export type Plan = z.infer<typeof planSchema>;

/** A bare array, or `{plans: [...]}`. */
export const plansResponseSchema = z.union([z.array(planSchema), z.pipe(z.object({ plans: z.array(planSchema) }), z.transform((r) => r.plans))]);

export function getPublicPlans(): Promise<Plan[]> {
  return publicApi.get('/plans/list', { schema: plansResponseSchema });
}

export const publicPlansQuery = () => queryOptions({ queryKey: ['plans', 'public'], queryFn: getPublicPlans, retry: false });

export function usePublicPlans() {
  return useQuery(publicPlansQuery());
}
