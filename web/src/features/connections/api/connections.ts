/**
 * Connections (docs/api.md "Connections"): `GET /whatsapp?session=0`, `GET/PUT/DELETE
 * /whatsapp/{id}`, `POST /whatsapp`, `POST /whatsapp/{id}/token`, session actions on
 * `/whatsappsession/{id}` and `POST /whatsapp-restart/`.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api';
import { connectionSchema, type Connection } from '../types';

export const connectionsKeys = {
  all: ['connections'] as const,
  list: () => [...connectionsKeys.all, 'list'] as const,
  detail: (id: number) => [...connectionsKeys.all, 'detail', id] as const,
};

const listSchema = z.union([z.array(connectionSchema), z.object({ whatsapps: z.array(connectionSchema) }).transform((r) => r.whatsapps)]);

export function getConnections(signal?: AbortSignal): Promise<Connection[]> {
  return api.get('/whatsapp', { params: { session: 0 }, schema: listSchema, signal });
}

export const connectionsQuery = () => queryOptions({ queryKey: connectionsKeys.list(), queryFn: ({ signal }) => getConnections(signal) });

export function useConnections(enabled = true) {
  return useQuery({ ...connectionsQuery(), enabled });
}

export function useConnection(id: number | null) {
  return useQuery({
    queryKey: connectionsKeys.detail(id ?? 0),
    queryFn: ({ signal }) => api.get(`/whatsapp/${id}`, { params: { session: 0 }, schema: connectionSchema, signal }),
    enabled: id !== null,
  });
}

/** The general tab's fields (spec 2 "Connection dialog"). */
export const connectionFormSchema = z.object({
  name: z.string().trim().min(1, 'REQUIRED').min(2, 'TOO_SHORT').max(50, 'TOO_LONG'),
  isDefault: z.boolean(),
  greetingMessage: z.string(),
  complationMessage: z.string(),
  outOfHoursMessage: z.string(),
  ratingMessage: z.string(),
  allowGroup: z.boolean(),
  groupAsTicket: z.boolean(),
  queueIds: z.array(z.number()),
});
export type ConnectionFormValues = z.infer<typeof connectionFormSchema>;
export const CONNECTION_FORM_FIELDS = Object.keys(connectionFormSchema.shape) as (keyof ConnectionFormValues)[];

export const emptyConnectionForm: ConnectionFormValues = {
  name: '',
  isDefault: false,
  greetingMessage: '',
  complationMessage: '',
  outOfHoursMessage: '',
  ratingMessage: '',
  allowGroup: false,
  groupAsTicket: false,
  queueIds: [],
};

/**
 * The `ConnectionInput` body. Fields of the tabs not built yet are carried over from the
 * edited connection, so saving the general tab never resets them.
 */
export function connectionBody(values: ConnectionFormValues, current: Connection | null, channel: string) {
  return {
    name: values.name.trim(),
    channel: current?.channel ?? channel,
    ...(current?.provider ? { provider: current.provider } : {}),
    isDefault: values.isDefault,
    greetingMessage: values.greetingMessage,
    complationMessage: values.complationMessage,
    outOfHoursMessage: values.outOfHoursMessage,
    ratingMessage: values.ratingMessage,
    allowGroup: values.allowGroup,
    groupAsTicket: values.allowGroup && values.groupAsTicket,
    queueIds: values.queueIds,
    maxUseBotQueues: current?.maxUseBotQueues ?? 3,
    timeUseBotQueues: current?.timeUseBotQueues ?? 0,
    timeSendQueue: current?.timeSendQueue ?? 0,
    sendIdQueue: current?.sendIdQueue ?? null,
    expiresTicket: current?.expiresTicket ?? 0,
    expiresInactiveMessage: current?.expiresInactiveMessage ?? '',
    timeCreateNewTicket: current?.timeCreateNewTicket ?? 0,
  };
}
export type ConnectionBody = ReturnType<typeof connectionBody>;

/** Replaces (or adds) a connection in the cached list. */
export function upsertConnection(list: Connection[] | undefined, connection: Connection): Connection[] | undefined {
  if (!list) return list;
  const others = connection.isDefault ? list.map((c) => (c.id !== connection.id && c.isDefault ? { ...c, isDefault: false } : c)) : list;
  return others.some((c) => c.id === connection.id) ? others.map((c) => (c.id === connection.id ? { ...c, ...connection } : c)) : [...others, connection];
}

export function useSaveConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: ConnectionBody }) =>
      id === null ? api.post('/whatsapp', body, { schema: connectionSchema }) : api.put(`/whatsapp/${id}`, body, { schema: connectionSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => upsertConnection(list, saved));
      queryClient.setQueryData(connectionsKeys.detail(saved.id), saved);
      void queryClient.invalidateQueries({ queryKey: connectionsKeys.list() });
    },
  });
}

export function useDeleteConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/whatsapp/${id}`),
    onSuccess: (_, id) => {
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => list?.filter((c) => c.id !== id));
      queryClient.removeQueries({ queryKey: connectionsKeys.detail(id) });
    },
  });
}

const tokenSchema = z.union([z.string(), z.object({ token: z.string() }).loose().transform((r) => r.token)]);

/** `POST /whatsapp/{id}/token` → the new token (a string, `{token}` or the connection). */
export function useRegenerateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post(`/whatsapp/${id}/token`, undefined, { schema: tokenSchema }),
    onSuccess: (token, id) => {
      queryClient.setQueryData<Connection>(connectionsKeys.detail(id), (c) => (c ? { ...c, token } : c));
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => list?.map((c) => (c.id === id ? { ...c, token } : c)));
    },
  });
}

export type SessionAction = 'start' | 'newQr' | 'disconnect';
const SESSION_METHODS: Record<SessionAction, 'POST' | 'PUT' | 'DELETE'> = { start: 'POST', newQr: 'PUT', disconnect: 'DELETE' };

/** Retry / new QR / disconnect a connection's session. Status changes arrive by socket. */
export function useSessionAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: SessionAction }) => api.request(SESSION_METHODS[action], `/whatsappsession/${id}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionsKeys.list() }),
  });
}

export function useRestartAll() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('/whatsapp-restart/'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionsKeys.list() }),
  });
}
