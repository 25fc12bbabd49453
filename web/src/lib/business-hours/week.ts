/**
 * Working hours as the server sends them (spec 2 §3 "Schedule row"; core/src/queue.rs): kept per
 * queue, per connection or per company, as the `scheduleType` setting says.
 */
import { z } from 'zod/mini';

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
  startTimeA: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  endTimeA: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  startTimeB: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  endTimeB: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
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
