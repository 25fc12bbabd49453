/** The queues the ticket and OpenAI nodes choose from. */
import { useQueueOptions } from '../../api/flows';

/** The company's queues, and the same as select options. */
export function useQueueSelect() {
  const queues = useQueueOptions().data ?? [];
  return { queues, options: queues.map((q) => ({ value: q.id, label: q.name })) };
}
