/**
 * Queues, chatbot options and schedule rows as the server sends them (spec 2 §3 "Queue",
 * "Chatbot option", "Schedule row"; core/src/queue.rs).
 */
import { z } from 'zod';

/** The option types of spec 2 §9 ("attendent" is the wire spelling). */
export const QUEUE_TYPES = ['text', 'attendent', 'queue', 'integration', 'file'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

/** Rotation times of spec 2 §9, in minutes; 0 is the default. */
export const ROTATION_MINUTES = [0, 2, 5, 10, 15, 30, 45, 60] as const;

/** Where working hours are kept (the `scheduleType` setting). */
export const SCHEDULE_TYPES = ['disabled', 'queue', 'company', 'connection'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

/** The week as stored: Portuguese name on the wire plus the English key, Monday first. */
export const WEEKDAYS = [
  { weekday: 'Segunda-feira', weekdayEn: 'monday' },
  { weekday: 'Terça-feira', weekdayEn: 'tuesday' },
  { weekday: 'Quarta-feira', weekdayEn: 'wednesday' },
  { weekday: 'Quinta-feira', weekdayEn: 'thursday' },
  { weekday: 'Sexta-feira', weekdayEn: 'friday' },
  { weekday: 'Sábado', weekdayEn: 'saturday' },
  { weekday: 'Domingo', weekdayEn: 'sunday' },
] as const;
export type WeekdayEn = (typeof WEEKDAYS)[number]['weekdayEn'];

/** Shifts every day gets until someone changes them (spec 2 "Queues"). */
export const DEFAULT_SHIFT_A = { start: '08:00', end: '12:00' } as const;
export const DEFAULT_SHIFT_B = { start: '13:00', end: '18:00' } as const;

export const scheduleRowSchema = z.object({
  weekday: z.string(),
  weekdayEn: z.string(),
  startTimeA: z.string().nullish().transform((v) => v ?? ''),
  endTimeA: z.string().nullish().transform((v) => v ?? ''),
  startTimeB: z.string().nullish().transform((v) => v ?? ''),
  endTimeB: z.string().nullish().transform((v) => v ?? ''),
});
export type ScheduleRow = z.infer<typeof scheduleRowSchema>;
export type ShiftField = 'startTimeA' | 'endTimeA' | 'startTimeB' | 'endTimeB';
export const SHIFT_FIELDS: readonly ShiftField[] = ['startTimeA', 'endTimeA', 'startTimeB', 'endTimeB'];

/** Seven rows, Monday to Sunday, with the default shifts. */
export function defaultSchedules(): ScheduleRow[] {
  return WEEKDAYS.map(({ weekday, weekdayEn }) => ({
    weekday,
    weekdayEn,
    startTimeA: DEFAULT_SHIFT_A.start,
    endTimeA: DEFAULT_SHIFT_A.end,
    startTimeB: DEFAULT_SHIFT_B.start,
    endTimeB: DEFAULT_SHIFT_B.end,
  }));
}

/**
 * Stored rows completed to the full week in Monday-first order: a missing day gets the defaults,
 * so the editor always shows seven rows. An empty list means "never set": all defaults.
 */
export function completeWeek(rows: readonly ScheduleRow[]): ScheduleRow[] {
  const defaults = defaultSchedules();
  return defaults.map((day) => rows.find((row) => row.weekdayEn === day.weekdayEn) ?? day);
}

/** A chatbot option as the server sends it, nested to any depth. */
export interface ChatbotOption {
  id: number | null;
  name: string;
  greetingMessage: string;
  queueType: QueueType;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  options: ChatbotOption[];
}

export const chatbotOptionSchema: z.ZodType<ChatbotOption, unknown> = z.lazy(() =>
  z.object({
    id: z.number().nullish().transform((v) => v ?? null),
    name: z.string().nullish().transform((v) => v ?? ''),
    greetingMessage: z.string().nullish().transform((v) => v ?? ''),
    queueType: z.enum(QUEUE_TYPES).catch('text'),
    optQueueId: z.number().nullish().transform((v) => v ?? null),
    optUserId: z.number().nullish().transform((v) => v ?? null),
    optIntegrationId: z.number().nullish().transform((v) => v ?? null),
    optFileId: z.number().nullish().transform((v) => v ?? null),
    closeTicket: z.boolean().nullish().transform((v) => v ?? false),
    options: z
      .array(chatbotOptionSchema)
      .nullish()
      .transform((v) => v ?? []),
  }),
);

/** `GET /queue` rows and `GET /queue/{id}`. */
export const queueSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.string().nullish().transform((v) => v ?? ''),
  orderQueue: z.number().nullish().transform((v) => v ?? null),
  greetingMessage: z.string().nullish().transform((v) => v ?? ''),
  outOfHoursMessage: z.string().nullish().transform((v) => v ?? ''),
  closeTicket: z.boolean().nullish().transform((v) => v ?? false),
  ativarRoteador: z.boolean().nullish().transform((v) => v ?? false),
  tempoRoteador: z.number().nullish().transform((v) => v ?? 0),
  integrationId: z.number().nullish().transform((v) => v ?? null),
  fileListId: z.number().nullish().transform((v) => v ?? null),
  schedules: z
    .array(scheduleRowSchema)
    .nullish()
    .transform((v) => v ?? []),
  chatbots: z
    .array(chatbotOptionSchema)
    .nullish()
    .transform((v) => v ?? []),
});
export type Queue = z.infer<typeof queueSchema>;

/** The body of `POST /queue` and `PUT /queue/{id}`; `schedules` omitted keeps the stored rows. */
export interface QueueInput {
  name: string;
  color: string;
  orderQueue: number | null;
  greetingMessage: string;
  outOfHoursMessage: string;
  closeTicket: boolean;
  ativarRoteador: boolean;
  tempoRoteador: number;
  integrationId: number | null;
  fileListId: number | null;
  schedules?: ScheduleRow[];
  chatbots: ChatbotOption[];
}
