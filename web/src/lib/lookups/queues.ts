/**
 * The company's queues as option lists (`GET /queue`): for the transfer and schedule dialogs
 * ([`useCompanyQueues`], falling back to the signed-in user's queues when the server does not
 * serve the list) and for the user and connection modals ([`useQueues`], empty on failure).
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api, isApiError } from '../api';
import { useSession } from '../session';
import { queueRefSchema, type QueueRef } from './refs';

const queuesSchema = z.union([z.array(queueRefSchema), z.pipe(z.object({ queues: z.array(queueRefSchema) }), z.transform((r) => r.queues))]);

export function useCompanyQueues(enabled: boolean): QueueRef[] {
  const session = useSession();
  const own = session.status === 'authenticated' ? (session.user.queues ?? []) : [];
  const query = useQuery({
    queryKey: ['tickets', 'options', 'queues'],
    queryFn: async () => {
      try {
        return await api.get('/queue', { schema: queuesSchema });
      } catch {
        return null;
      }
    },
    enabled,
    staleTime: 60_000,
  });
  return query.data && query.data.length > 0 ? query.data : own;
}

/** Queues are not served yet by every server version: any failure yields an empty list. */
async function getQueues(): Promise<QueueRef[]> {
  try {
    return await api.get('/queue', { schema: queuesSchema });
  } catch (error) {
    if (!(isApiError(error) && error.status === 404)) console.warn('queues unavailable', error);
    return [];
  }
}

const queuesQuery = () => queryOptions({ queryKey: ['queues', 'list'], queryFn: getQueues, staleTime: 60_000 });

export function useQueues(enabled: boolean) {
  return useQuery({ ...queuesQuery(), enabled });
}
