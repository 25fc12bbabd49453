/**
 * `GET /queue` → the company's queues, for the user modal. Queues are not served yet by every
 * server version: any failure yields an empty list.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, isApiError } from '../../../lib/api';

export const queueSchema = z.object({ id: z.number(), name: z.string(), color: z.string().nullish() });
export type Queue = z.infer<typeof queueSchema>;

const queuesSchema = z.union([z.array(queueSchema), z.object({ queues: z.array(queueSchema) }).transform((r) => r.queues)]);

export async function getQueues(): Promise<Queue[]> {
  try {
    return await api.get('/queue', { schema: queuesSchema });
  } catch (error) {
    if (!(isApiError(error) && error.status === 404)) console.warn('queues unavailable', error);
    return [];
  }
}

export const queuesQuery = () => queryOptions({ queryKey: ['queues', 'list'], queryFn: getQueues, staleTime: 60_000 });

export function useQueues(enabled: boolean) {
  return useQuery({ ...queuesQuery(), enabled });
}
