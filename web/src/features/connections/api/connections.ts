/**
 * Connections (docs/api.md "Connections"): `GET /whatsapp?session=0`, `GET/PUT/DELETE
 * /whatsapp/{id}`, `POST /whatsapp`, `POST /whatsapp/{id}/token`, session actions on
 * `/whatsappsession/{id}`, linking by phone number (`POST /whatsappsession/{id}/paircode`) and
 * `POST /whatsapp-restart/`; the providers the server runs (`GET /whatsapp/providers`).
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { SHIFT_FIELDS, completeWeek, defaultSchedules, type ScheduleRow, type ScheduleType } from '../../../lib/business-hours/week';
import { scheduleRowErrors } from '../../../lib/business-hours/rows';
import { connectionQueueIds, connectionSchema, type Connection } from '../types';
import { checkedByCore } from '../../../lib/wasm/forms';
import { importBody, importFormErrors, toLocalInput } from '../utils/import-messages';

export const connectionsKeys = {
  all: ['connections'] as const,
  list: () => [...connectionsKeys.all, 'list'] as const,
  detail: (id: number) => [...connectionsKeys.all, 'detail', id] as const,
  providers: () => [...connectionsKeys.all, 'providers'] as const,
};

const listSchema = z.union([z.array(connectionSchema), z.pipe(z.object({ whatsapps: z.array(connectionSchema) }), z.transform((r) => r.whatsapps))]);

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

/** The WhatsApp providers the dialog names: WhatsApp Web (`beta`) and the simulated phone (`sandbox`). */
export const KNOWN_PROVIDERS = ['beta', 'sandbox'] as const;
export type KnownProvider = (typeof KNOWN_PROVIDERS)[number];

export function isKnownProvider(provider: string | null | undefined): provider is KnownProvider {
  return (KNOWN_PROVIDERS as readonly string[]).includes(provider ?? '');
}

/** `GET /whatsapp/providers`: the providers this server runs, in order, and what a create call naming none gets. */
const providersSchema = z.object({ providers: z.array(z.string()), default: z.string() });
export type ConnectionProviders = z.infer<typeof providersSchema>;

/**
 * The providers this server runs. They change only when the server restarts. A server without the
 * route (404) leaves it in error: the dialog then offers no choice and names no provider.
 */
export function useConnectionProviders(enabled = true) {
  return useQuery({
    queryKey: connectionsKeys.providers(),
    queryFn: ({ signal }) => api.get('/whatsapp/providers', { schema: providersSchema, signal }),
    staleTime: Infinity,
    enabled,
  });
}

/** The provider a new connection starts with: WhatsApp Web when the server runs it (a real user wants a real phone), else the server's default. */
export function initialProvider(providers: ConnectionProviders | undefined): string {
  if (!providers) return '';
  if (providers.providers.includes('beta')) return 'beta';
  return providers.default || (providers.providers[0] ?? '');
}

const COUNT = /^\d*$/;
/** A whole number of minutes or times, typed as text (empty counts as 0). */
const count = z.string().check(z.trim(), z.regex(COUNT, 'INVALID_FORMAT'));
/** An optional choice in a select: an id, or '' for none. */
const optionalId = z.union([z.number(), z.literal('')]);

/** Translation keys of the dialog's own checks. */
export const CONNECTION_ERRORS = {
  vacationIncomplete: 'connections.validation.vacationIncomplete',
  vacationOrder: 'connections.validation.vacationOrder',
} as const;

/** Every field of the dialog, by tab (spec 2 "Connection dialog"). */
export const connectionFormBase = z.object({
  // general
  name: z.string(),
  /** The provider of a new connection ('' to let the server choose); fixed once created. */
  provider: z.string(),
  isDefault: z.boolean(),
  allowGroup: z.boolean(),
  groupAsTicket: z.boolean(),
  queueIds: z.array(z.number()),
  // messages
  greetingMessage: z.string(),
  complationMessage: z.string(),
  outOfHoursMessage: z.string(),
  ratingMessage: z.string(),
  collectiveVacationStart: z.string(),
  collectiveVacationEnd: z.string(),
  collectiveVacationMessage: z.string(),
  // chatbot
  maxUseBotQueues: count,
  timeUseBotQueues: count,
  timeSendQueue: count,
  sendIdQueue: optionalId,
  expiresTicket: count,
  expiresInactiveMessage: z.string(),
  flowIdWelcome: optionalId,
  flowIdNotPhrase: optionalId,
  // import (WhatsApp): the dates as `datetime-local` values
  enableImportMessage: z.boolean(),
  importOldMessages: z.string(),
  importRecentMessages: z.string(),
  importOldMessagesGroups: z.boolean(),
  closedTicketsPostImported: z.boolean(),
  queueIdImportMessages: optionalId,
  // schedules
  schedules: z.array(
    z.object({ weekday: z.string(), weekdayEn: z.string(), startTimeA: z.string(), endTimeA: z.string(), startTimeB: z.string(), endTimeB: z.string() }),
  ),
});
export type ConnectionFormValues = z.infer<typeof connectionFormBase>;
export const CONNECTION_FORM_FIELDS = Object.keys(connectionFormBase.shape) as (keyof ConnectionFormValues)[];

export type ConnectionTab = 'general' | 'messages' | 'chatbot' | 'import' | 'schedules';

/** The tab of each field. */
export const CONNECTION_FIELD_TABS: Record<keyof ConnectionFormValues, ConnectionTab> = {
  name: 'general',
  provider: 'general',
  isDefault: 'general',
  allowGroup: 'general',
  groupAsTicket: 'general',
  queueIds: 'general',
  greetingMessage: 'messages',
  complationMessage: 'messages',
  outOfHoursMessage: 'messages',
  ratingMessage: 'messages',
  collectiveVacationStart: 'messages',
  collectiveVacationEnd: 'messages',
  collectiveVacationMessage: 'messages',
  maxUseBotQueues: 'chatbot',
  timeUseBotQueues: 'chatbot',
  timeSendQueue: 'chatbot',
  sendIdQueue: 'chatbot',
  expiresTicket: 'chatbot',
  expiresInactiveMessage: 'chatbot',
  flowIdWelcome: 'chatbot',
  flowIdNotPhrase: 'chatbot',
  enableImportMessage: 'import',
  importOldMessages: 'import',
  importRecentMessages: 'import',
  importOldMessagesGroups: 'import',
  closedTicketsPostImported: 'import',
  queueIdImportMessages: 'import',
  schedules: 'schedules',
};

/** The tab of a field path (`schedules.0.endTimeA` is on the schedules tab); general when unknown. */
export function tabOfField(path: string): ConnectionTab {
  const root = path.split(/[.[]/)[0] as keyof ConnectionFormValues;
  return CONNECTION_FIELD_TABS[root] ?? 'general';
}

/**
 * The dialog's checks (spec 2 §5): the name; a collective vacation has both dates or neither, the
 * end not before the start; a redirect time needs its queue; with message import on (WhatsApp),
 * its dates and queue (`importFormErrors`, against `now()` at submit); the hours are checked only
 * when they are kept per connection (`scheduleType` = connection).
 */
export function connectionFormSchema(scheduleType: ScheduleType | undefined, now: () => Date = () => new Date()) {
  // The name by the core's rule (`validate_connection_name`), the same the server applies.
  return checkedByCore(connectionFormBase, (v) => ({ form: 'connection', name: v.name })).check(
    z.superRefine((value, ctx) => {
      const start = value.collectiveVacationStart;
      const end = value.collectiveVacationEnd;
      if (start && !end) ctx.addIssue({ code: 'custom', path: ['collectiveVacationEnd'], message: CONNECTION_ERRORS.vacationIncomplete });
      if (!start && end) ctx.addIssue({ code: 'custom', path: ['collectiveVacationStart'], message: CONNECTION_ERRORS.vacationIncomplete });
      if (start && end && end < start) ctx.addIssue({ code: 'custom', path: ['collectiveVacationEnd'], message: CONNECTION_ERRORS.vacationOrder });
      if (Number(value.timeSendQueue || 0) !== 0 && value.sendIdQueue === '') ctx.addIssue({ code: 'custom', path: ['sendIdQueue'], message: 'REQUIRED' });
      for (const [field, message] of Object.entries(importFormErrors(value, now()))) {
        ctx.addIssue({ code: 'custom', path: [field], message });
      }
      if (scheduleType === 'connection') {
        value.schedules.forEach((row, index) => {
          const errors = scheduleRowErrors(row);
          for (const field of SHIFT_FIELDS) {
            const message = errors[field];
            if (message) ctx.addIssue({ code: 'custom', path: ['schedules', index, field], message });
          }
        });
      }
    }),
  );
}

export function emptyConnectionForm(provider = ''): ConnectionFormValues {
  return {
    name: '',
    provider,
    isDefault: false,
    allowGroup: false,
    groupAsTicket: false,
    queueIds: [],
    greetingMessage: '',
    complationMessage: '',
    outOfHoursMessage: '',
    ratingMessage: '',
    collectiveVacationStart: '',
    collectiveVacationEnd: '',
    collectiveVacationMessage: '',
    maxUseBotQueues: '3',
    timeUseBotQueues: '0',
    timeSendQueue: '0',
    sendIdQueue: '',
    expiresTicket: '0',
    expiresInactiveMessage: '',
    flowIdWelcome: '',
    flowIdNotPhrase: '',
    enableImportMessage: false,
    importOldMessages: '',
    importRecentMessages: '',
    importOldMessagesGroups: false,
    closedTicketsPostImported: false,
    queueIdImportMessages: '',
    schedules: defaultSchedules(),
  };
}

/** The form's values for a stored connection (hours completed to the week, as the queues do). */
export function connectionFormOf(connection: Connection): ConnectionFormValues {
  return {
    name: connection.name,
    provider: connection.provider ?? '',
    isDefault: connection.isDefault,
    allowGroup: connection.allowGroup,
    groupAsTicket: connection.groupAsTicket,
    queueIds: connectionQueueIds(connection),
    greetingMessage: connection.greetingMessage,
    complationMessage: connection.complationMessage,
    outOfHoursMessage: connection.outOfHoursMessage,
    ratingMessage: connection.ratingMessage,
    collectiveVacationStart: connection.collectiveVacationStart ?? '',
    collectiveVacationEnd: connection.collectiveVacationEnd ?? '',
    collectiveVacationMessage: connection.collectiveVacationMessage,
    maxUseBotQueues: String(connection.maxUseBotQueues),
    timeUseBotQueues: String(connection.timeUseBotQueues),
    timeSendQueue: String(connection.timeSendQueue),
    sendIdQueue: connection.sendIdQueue ?? '',
    expiresTicket: String(connection.expiresTicket),
    expiresInactiveMessage: connection.expiresInactiveMessage,
    flowIdWelcome: connection.flowIdWelcome ?? '',
    flowIdNotPhrase: connection.flowIdNotPhrase ?? '',
    enableImportMessage: connection.enableImportMessage,
    importOldMessages: toLocalInput(connection.importOldMessages),
    importRecentMessages: toLocalInput(connection.importRecentMessages),
    importOldMessagesGroups: connection.importOldMessagesGroups,
    closedTicketsPostImported: connection.closedTicketsPostImported,
    queueIdImportMessages: connection.queueIdImportMessages ?? '',
    schedules: completeWeek(connection.schedules),
  };
}

function whole(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : Number(trimmed);
}

/**
 * The `ConnectionInput` body. Hours are sent from the form only when they are kept per connection
 * (otherwise the stored rows stay); fields no tab edits yet (NPS, inactivity) keep their value.
 * A new WhatsApp connection names the chosen provider (none chosen: the server's default); a
 * stored one keeps its own. Message import is for WhatsApp connections: off, its fields are sent
 * as null/false.
 */
export function connectionBody(values: ConnectionFormValues, current: Connection | null, channel: string, scheduleType?: ScheduleType) {
  const provider = current ? current.provider : channel === 'whatsapp' ? values.provider : '';
  const isWhatsapp = (current?.channel ?? channel) === 'whatsapp';
  return {
    name: values.name.trim(),
    channel: current?.channel ?? channel,
    ...(provider ? { provider } : {}),
    isDefault: values.isDefault,
    greetingMessage: values.greetingMessage,
    complationMessage: values.complationMessage,
    outOfHoursMessage: values.outOfHoursMessage,
    ratingMessage: values.ratingMessage,
    allowGroup: values.allowGroup,
    groupAsTicket: values.allowGroup && values.groupAsTicket,
    queueIds: values.queueIds,
    collectiveVacationStart: values.collectiveVacationStart || null,
    collectiveVacationEnd: values.collectiveVacationEnd || null,
    collectiveVacationMessage: values.collectiveVacationMessage,
    maxUseBotQueues: whole(values.maxUseBotQueues),
    timeUseBotQueues: whole(values.timeUseBotQueues),
    timeSendQueue: whole(values.timeSendQueue),
    sendIdQueue: values.sendIdQueue === '' ? null : values.sendIdQueue,
    expiresTicket: whole(values.expiresTicket),
    expiresInactiveMessage: values.expiresInactiveMessage,
    flowIdWelcome: values.flowIdWelcome === '' ? null : values.flowIdWelcome,
    flowIdNotPhrase: values.flowIdNotPhrase === '' ? null : values.flowIdNotPhrase,
    ...importBody(values, current, isWhatsapp),
    schedules: scheduleType === 'connection' ? values.schedules.map((row): ScheduleRow => ({ ...row })) : (current?.schedules ?? []),
    timeCreateNewTicket: current?.timeCreateNewTicket ?? 0,
    maxUseBotQueuesNPS: current?.maxUseBotQueuesNPS ?? 3,
    expiresTicketNPS: current?.expiresTicketNPS ?? 0,
    timeInactiveMessage: current?.timeInactiveMessage ?? 0,
    inactiveMessage: current?.inactiveMessage ?? '',
    whenExpiresTicket: current?.whenExpiresTicket ?? 0,
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

const tokenSchema = z.union([z.string(), z.pipe(z.looseObject({ token: z.string() }), z.transform((r) => r.token))]);

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

/**
 * Asks to link the connection by phone number (`POST /whatsappsession/{id}/paircode`); the code
 * arrives by socket (status PAIRING with `pairingCode`). The number is checked by the server
 * (`ERR_WAPP_INVALID_CONTACT` with the field `number`).
 */
export function useRequestPairCode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, number }: { id: number; number: string }) => api.post(`/whatsappsession/${id}/paircode`, { number }),
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

const flowChoicesPageSchema = z.object({
  flows: z.array(z.looseObject({ id: z.number(), name: z.string() })),
  hasMore: z.catch(z.boolean(), false),
});
export type FlowChoice = { id: number; name: string };

/** The most pages of flows the dialog's selects read (20 flows a page). */
const FLOW_CHOICE_PAGES = 25;

/** The company's flows for the chatbot tab's selects (`GET /flowbuilder`, every page, by name). */
export function useFlowChoices(enabled = true) {
  return useQuery({
    queryKey: [...connectionsKeys.all, 'flowChoices'] as const,
    queryFn: async ({ signal }) => {
      const flows: FlowChoice[] = [];
      for (let page = 1; page <= FLOW_CHOICE_PAGES; page += 1) {
        const result = await api.get('/flowbuilder', { params: { searchParam: '', pageNumber: page }, schema: flowChoicesPageSchema, signal });
        flows.push(...result.flows.map((flow) => ({ id: flow.id, name: flow.name })));
        if (!result.hasMore) break;
      }
      return flows;
    },
    enabled,
  });
}
