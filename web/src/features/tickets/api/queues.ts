/**
 * The company's queues for the transfer dialog: `GET /queue`, falling back to the signed-in
 * user's queues when the server does not serve the list.
 */
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api';
import { useSession } from '../../../lib/session';
import { queueRefSchema, type QueueRef } from '../types';

const queuesSchema = z.union([z.array(queueRefSchema), z.object({ queues: z.array(queueRefSchema) }).transform((r) => r.queues)]);

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
