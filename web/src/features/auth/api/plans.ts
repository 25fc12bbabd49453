/** `GET /plans/list` (public) → the plans offered on the signup page. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { publicApi } from '../../../lib/api';

export const planSchema = z.object({
  id: z.number(),
  name: z.string(),
  users: z.number().nullish(),
  connections: z.number().nullish(),
  queues: z.number().nullish(),
  amount: z.coerce.number().nullish(),
});
export type Plan = z.infer<typeof planSchema>;

/** A bare array, or `{plans: [...]}`. */
export const plansResponseSchema = z.union([z.array(planSchema), z.object({ plans: z.array(planSchema) }).transform((r) => r.plans)]);

export function getPublicPlans(): Promise<Plan[]> {
  return publicApi.get('/plans/list', { schema: plansResponseSchema });
}

export const publicPlansQuery = () => queryOptions({ queryKey: ['plans', 'public'], queryFn: getPublicPlans, retry: false });

export function usePublicPlans() {
  return useQuery(publicPlansQuery());
}
