import { describe, expect, it } from 'vitest';
import { completeWeek, defaultSchedules } from './week';
import { SHIFT_ERRORS, scheduleRowErrors, scheduleRowsSchema } from './rows';

const monday = () => defaultSchedules()[0];

describe('working hours checks', () => {
  it('accepts the defaults and closed shifts', () => {
    expect(scheduleRowErrors(monday())).toEqual({});
    expect(scheduleRowErrors({ ...monday(), startTimeB: '', endTimeB: '' })).toEqual({});
    expect(scheduleRowErrors({ ...monday(), startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' })).toEqual({});
    expect(scheduleRowsSchema.safeParse(defaultSchedules()).success).toBe(true);
  });

  it('flags a bad time, a half-open shift and an end not after its start', () => {
    expect(scheduleRowErrors({ ...monday(), startTimeA: '24:00' })).toEqual({ startTimeA: 'INVALID_FORMAT' });
    expect(scheduleRowErrors({ ...monday(), endTimeB: '' })).toEqual({ endTimeB: SHIFT_ERRORS.incomplete });
    expect(scheduleRowErrors({ ...monday(), startTimeA: '' })).toEqual({ startTimeA: SHIFT_ERRORS.incomplete });
    expect(scheduleRowErrors({ ...monday(), endTimeA: '08:00' })).toEqual({ endTimeA: SHIFT_ERRORS.order });
    const rows = defaultSchedules();
    rows[3].endTimeB = '12:59';
    const result = scheduleRowsSchema.safeParse(rows);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([[[3, 'endTimeB'], SHIFT_ERRORS.order]]);
  });

  it('completes a stored week to seven rows, Monday first, keeping stored days', () => {
    const sunday = { ...defaultSchedules()[6], startTimeA: '', endTimeA: '' };
    const week = completeWeek([sunday]);
    expect(week.map((row) => row.weekdayEn)).toEqual(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
    expect(week[6]).toEqual(sunday);
    expect(week[0]).toEqual({ weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' });
    expect(completeWeek([])).toEqual(defaultSchedules());
  });
});
