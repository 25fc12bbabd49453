/**
 * Queues (spec 2 "Queues", §7): `GET /queue`, `GET /queue/{id}`, `POST /queue`,
 * `PUT /queue/{id}` (the chatbot tree sent replaces the stored one; options keep their `id` when
 * sent with it), `DELETE /queue/{id}`.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { queueSchema, type Queue, type QueueInput } from '../types';

const queueListSchema = z.union([z.array(queueSchema), z.pipe(z.object({ queues: z.array(queueSchema) }), z.transform((r) => r.queues))]);

export const queuesKeys = {
  /** Every queue query of the app, the users' and the inbox's summaries included. */
  all: ['queues'] as const,
  /** The full rows this page lists (a key of its own: other features cache `['queues', 'list']` as summaries). */
  full: () => [...queuesKeys.all, 'full'] as const,
  detail: (id: number) => [...queuesKeys.all, 'detail', id] as const,
  users: () => [...queuesKeys.all, 'options', 'users'] as const,
};

/** The inbox keeps its own copy of the queue names (lib/lookups/queues.ts). */
const INBOX_QUEUES_KEY = ['tickets', 'options', 'queues'] as const;

export function getQueues(signal?: AbortSignal): Promise<Queue[]> {
  return api.get('/queue', { schema: queueListSchema, signal });
}

export const queueListQuery = () => queryOptions({ queryKey: queuesKeys.full(), queryFn: ({ signal }) => getQueues(signal) });

/** Every queue of the company, in the server's order (the list is small: paginated on the client). */
export function useQueueList() {
  return useQuery(queueListQuery());
}

export function getQueue(id: number, signal?: AbortSignal): Promise<Queue> {
  return api.get(`/queue/${id}`, { schema: queueSchema, signal });
}

/** One queue with its whole chatbot tree; disabled for null. */
export function useQueue(id: number | null) {
  return useQuery({ queryKey: queuesKeys.detail(id ?? 0), queryFn: ({ signal }) => getQueue(id ?? 0, signal), enabled: id !== null });
}

export function saveQueue(id: number | null, body: QueueInput): Promise<Queue> {
  return id === null ? api.post('/queue', body, { schema: queueSchema }) : api.put(`/queue/${id}`, body, { schema: queueSchema });
}

function useInvalidateQueues() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: queuesKeys.all }), queryClient.invalidateQueries({ queryKey: INBOX_QUEUES_KEY })]);
}

export function useSaveQueue() {
  const invalidate = useInvalidateQueues();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: QueueInput }) => saveQueue(id, body),
    onSuccess: () => invalidate(),
  });
}

export function useDeleteQueue() {
  const invalidate = useInvalidateQueues();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/queue/${id}`),
    onSuccess: () => invalidate(),
  });
}

const userOptionSchema = z.looseObject({ id: z.number(), name: z.string() });
export type UserOption = z.infer<typeof userOptionSchema>;
const userOptionsSchema = z.union([z.array(userOptionSchema), z.pipe(z.object({ users: z.array(userOptionSchema) }), z.transform((r) => r.users))]);

/** `GET /users/list`: the attendants an "attendent" option may hand the ticket to. */
export function useUserOptions(enabled: boolean) {
  return useQuery({
    queryKey: queuesKeys.users(),
    queryFn: ({ signal }) => api.get('/users/list', { schema: userOptionsSchema, signal }),
    enabled,
    staleTime: 60_000,
  });
}
