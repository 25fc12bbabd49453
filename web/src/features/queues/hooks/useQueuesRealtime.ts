/**
 * Live queue changes on `company-{id}-queue` (spec 2 §7): `{action: "create" | "update", queue}`
 * upserts the row, `{action: "delete", queueId}` removes it. The summaries other features cache
 * (user and connection dialogs, the inbox) refetch in the background.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { queuesKeys } from '../api/queues';
import { queueSchema, type Queue } from '../types';

interface QueueEvent {
  action?: string;
  queue?: unknown;
  queueId?: number;
}

/** The list with `queue` in place of the row with its id, or added at the end. */
export function upsertQueue(list: Queue[] | undefined, queue: Queue): Queue[] | undefined {
  if (!list) return list;
  return list.some((q) => q.id === queue.id) ? list.map((q) => (q.id === queue.id ? queue : q)) : [...list, queue];
}

export function removeQueue(list: Queue[] | undefined, queueId: number): Queue[] | undefined {
  return list?.filter((q) => q.id !== queueId);
}

export function useQueuesRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<QueueEvent>('queue', (event) => {
    if (event.action === 'delete') {
      const id = typeof event.queueId === 'number' ? event.queueId : queueSchema.safeParse(event.queue).data?.id;
      if (id === undefined) return;
      queryClient.setQueryData<Queue[]>(queuesKeys.full(), (list) => removeQueue(list, id));
      queryClient.removeQueries({ queryKey: queuesKeys.detail(id) });
    } else if (event.action === 'create' || event.action === 'update') {
      const parsed = queueSchema.safeParse(event.queue);
      if (parsed.success) {
        queryClient.setQueryData<Queue[]>(queuesKeys.full(), (list) => upsertQueue(list, parsed.data));
        queryClient.setQueryData(queuesKeys.detail(parsed.data.id), parsed.data);
      } else {
        void queryClient.invalidateQueries({ queryKey: queuesKeys.full() });
      }
    } else {
      return;
    }
    // Summaries elsewhere (['queues', 'list'], the inbox's copy): refetch, leave this page's rows as set.
    void queryClient.invalidateQueries({ queryKey: queuesKeys.all, predicate: (query) => query.queryKey[1] !== 'full' && query.queryKey[1] !== 'detail' });
    void queryClient.invalidateQueries({ queryKey: ['tickets', 'options', 'queues'] });
  });
}
