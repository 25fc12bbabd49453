/**
 * Checks of a week of working hours (spec 2 §3 "Schedule row"): each time is `HH:MM` or empty; a
 * shift is either closed (both empty) or open with its end after its start.
 */
import { z } from 'zod/mini';
import { SHIFT_FIELDS, type ScheduleRow, type ShiftField } from './week';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Translation keys of the row's problems, by field. */
export type RowErrors = Partial<Record<ShiftField, string>>;

export const SHIFT_ERRORS = {
  incomplete: 'queues.validation.shiftIncomplete',
  order: 'queues.validation.shiftOrder',
} as const;

function shiftErrors(start: string, end: string, startField: ShiftField, endField: ShiftField): RowErrors {
  const errors: RowErrors = {};
  if (start && !TIME.test(start)) errors[startField] = 'INVALID_FORMAT';
  if (end && !TIME.test(end)) errors[endField] = 'INVALID_FORMAT';
  if (Object.keys(errors).length > 0) return errors;
  if (!start && end) errors[startField] = SHIFT_ERRORS.incomplete;
  else if (start && !end) errors[endField] = SHIFT_ERRORS.incomplete;
  else if (start && end && end <= start) errors[endField] = SHIFT_ERRORS.order;
  return errors;
}

/** What is wrong with one day, if anything. */
export function scheduleRowErrors(row: ScheduleRow): RowErrors {
  return {
    ...shiftErrors(row.startTimeA, row.endTimeA, 'startTimeA', 'endTimeA'),
    ...shiftErrors(row.startTimeB, row.endTimeB, 'startTimeB', 'endTimeB'),
  };
}

/** Seven editable rows; every problem becomes an issue at `[day, field]`. */
export const scheduleRowsSchema = z
  .array(
    z.object({
      weekday: z.string(),
      weekdayEn: z.string(),
      startTimeA: z.string(),
      endTimeA: z.string(),
      startTimeB: z.string(),
      endTimeB: z.string(),
    }),
  )
  .check(
    z.superRefine((rows, ctx) => {
      rows.forEach((row, index) => {
        const errors = scheduleRowErrors(row);
        for (const field of SHIFT_FIELDS) {
          const message = errors[field];
          if (message) ctx.addIssue({ code: 'custom', path: [index, field], message });
        }
      });
    }),
  );
