/**
 * Creating and editing a schedule (docs/schedules.md): the dialog's form rules and defaults,
 * `POST /schedules`, `PUT /schedules/{id}`, `POST /schedules/{id}/media-upload`. Shared by the
 * schedules page and the ticket view (components/ScheduleDialog.tsx).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../api';
import { acceptOf, hasExtension } from '../files';
import type { ScheduleLimits } from '../wasm/rules';
import { scheduleSchema, schedulesKeys, type Schedule } from './schedule';

// The bounds (body length, repeats, the send time's grace, attachment types) are the core's:
// `ScheduleLimits` from `lib/wasm/rules` (`chatflow_core::schedule::schedule_limits`), passed in.

/** The attachment picker's `accept` (spec 1 §5: png, jpg). */
export function mediaAccept(limits: ScheduleLimits): string {
  return acceptOf(limits.mediaExtensions);
}
export function mediaAllowed(limits: ScheduleLimits, fileName: string): boolean {
  return hasExtension(fileName, limits.mediaExtensions);
}

/** `yyyy-MM-ddTHH:mm` in local time, as a datetime-local input shows it. */
export function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The dialog's default send time: one hour from now (spec 1 §5). */
export function defaultSendAt(now = new Date()): string {
  return localInputValue(new Date(now.getTime() + 60 * 60 * 1000));
}

const count = (max: number) => z.coerce.number().check(z.int(), z.minimum(1, 'OUT_OF_RANGE'), z.maximum(max, 'OUT_OF_RANGE'));

/** The dialog's form, held to the core's bounds. */
export function scheduleFormSchema(limits: ScheduleLimits) {
  return z.object({
    body: z
      .string()
      .check(z.trim(), z.minLength(1, 'REQUIRED'), z.minLength(limits.bodyMinChars, 'schedules.tooShort'), z.maxLength(limits.bodyMaxChars, 'TOO_LONG')),
    sendAt: z
      .string()
      .check(
        z.minLength(1, 'REQUIRED'),
        z.refine((value) => !Number.isNaN(new Date(value).getTime()), 'INVALID_FORMAT'),
        z.refine((value) => new Date(value).getTime() >= Date.now() - limits.pastGraceSeconds * 1000, 'schedules.inThePast'),
      ),
    intervalo: z.coerce.number().check(z.int(), z.minimum(1), z.maximum(4)),
    valorIntervalo: count(limits.maxEvery),
    enviarQuantasVezes: count(limits.maxSends),
    tipoDias: z.coerce.number().check(z.int(), z.minimum(4), z.maximum(6)),
    openTicket: z.boolean(),
    ticketUserId: z.union([z.number(), z.literal('')]),
    queueId: z.union([z.number(), z.literal('')]),
    statusTicket: z.enum(['open', 'closed']),
    assinar: z.boolean(),
  });
}
export type ScheduleFormSchema = ReturnType<typeof scheduleFormSchema>;
export type ScheduleFormValues = z.infer<ScheduleFormSchema>;
/** The form's fields, for the server's field errors. */
export function scheduleFormFields(schema: ScheduleFormSchema): (keyof ScheduleFormValues)[] {
  return Object.keys(schema.shape) as (keyof ScheduleFormValues)[];
}

export function scheduleFormDefaults(schedule: Schedule | null, now = new Date()): ScheduleFormValues {
  if (!schedule) {
    return {
      body: '',
      sendAt: defaultSendAt(now),
      intervalo: 1,
      valorIntervalo: 1,
      enviarQuantasVezes: 1,
      tipoDias: 4,
      openTicket: false,
      ticketUserId: '',
      queueId: '',
      statusTicket: 'closed',
      assinar: false,
    };
  }
  return {
    body: schedule.body,
    sendAt: localInputValue(new Date(schedule.sendAt)),
    intervalo: schedule.intervalo,
    valorIntervalo: schedule.valorIntervalo,
    enviarQuantasVezes: schedule.enviarQuantasVezes,
    tipoDias: schedule.tipoDias,
    openTicket: schedule.openTicket === 'enabled',
    ticketUserId: schedule.ticketUserId ?? '',
    queueId: schedule.queueId ?? '',
    statusTicket: schedule.statusTicket === 'open' ? 'open' : 'closed',
    assinar: schedule.assinar,
  };
}

/** The body of `POST`/`PUT /schedules`. */
export function scheduleBody(values: ScheduleFormValues, contactId: number, whatsappId: number | null) {
  return {
    body: values.body.trim(),
    contactId,
    whatsappId,
    sendAt: new Date(values.sendAt).toISOString(),
    intervalo: values.intervalo,
    valorIntervalo: values.valorIntervalo,
    enviarQuantasVezes: values.enviarQuantasVezes,
    tipoDias: values.tipoDias,
    openTicket: values.openTicket ? 'enabled' : 'disabled',
    ticketUserId: values.openTicket && values.ticketUserId !== '' ? values.ticketUserId : null,
    queueId: values.openTicket && values.queueId !== '' ? values.queueId : null,
    statusTicket: values.statusTicket,
    assinar: values.assinar,
  };
}

export function useSaveSchedule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body, file }: { id: number | null; body: ReturnType<typeof scheduleBody>; file: File | null }) => {
      const saved = id === null ? await api.post('/schedules', body, { schema: scheduleSchema }) : await api.put(`/schedules/${id}`, body, { schema: scheduleSchema });
      if (!file) return saved;
      const form = new FormData();
      form.append('file', file);
      return api.post(`/schedules/${saved.id}/media-upload`, form, { schema: scheduleSchema });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: schedulesKeys.all }),
  });
}
