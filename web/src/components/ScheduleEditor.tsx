import { Table, TableBody, TableCell, TableContainer, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { translateFieldCode } from '../lib/i18n/errors';
import { WEEKDAYS, type ScheduleRow, type ShiftField, type WeekdayEn } from '../lib/business-hours/week';
import { scheduleRowErrors } from '../lib/business-hours/rows';

interface ScheduleEditorProps {
  /** Seven rows, Monday first (see `completeWeek`). */
  value: ScheduleRow[];
  onChange: (rows: ScheduleRow[]) => void;
  disabled?: boolean;
  /** Prefix of the cells' test ids: `{testId}-{weekdayEn}-{field}`. */
  testId?: string;
}

const SHIFTS: { label: 'shiftA' | 'shiftB'; start: ShiftField; end: ShiftField }[] = [
  { label: 'shiftA', start: 'startTimeA', end: 'endTimeA' },
  { label: 'shiftB', start: 'startTimeB', end: 'endTimeB' },
];

function isWeekday(value: string): value is WeekdayEn {
  return WEEKDAYS.some((day) => day.weekdayEn === value);
}

/**
 * Working hours of a week: one row per weekday with two shifts A and B (spec 2 "Queues"). A shift
 * left blank is closed. Used by the queue dialog and the company's hours in the settings page;
 * problems (bad time, start without end, end before start) show under the cell as they happen.
 */
export function ScheduleEditor({ value, onChange, disabled, testId = 'schedule' }: ScheduleEditorProps) {
  const { t } = useTranslation();

  const setCell = (index: number, field: ShiftField, text: string) => {
    onChange(value.map((row, i) => (i === index ? { ...row, [field]: text } : row)));
  };

  const cell = (row: ScheduleRow, index: number, field: ShiftField, label: string, error: string | undefined) => (
    <TableCell key={field} sx={{ verticalAlign: 'top' }}>
      <TextField
        type="time"
        size="small"
        value={row[field]}
        disabled={disabled}
        onChange={(event) => setCell(index, field, event.target.value)}
        error={!!error}
        helperText={translateFieldCode(error, t)}
        aria-label={`${isWeekday(row.weekdayEn) ? t(`queues.schedule.weekdays.${row.weekdayEn}`) : row.weekday} — ${label}`}
        slotProps={{ htmlInput: { 'data-testid': `${testId}-${row.weekdayEn}-${field}`, step: 60 } }}
        sx={{ minWidth: 120 }}
      />
    </TableCell>
  );

  return (
    <TableContainer data-testid={testId}>
      <Table size="small">
        <TableHead>
          <TableRow>
            <TableCell rowSpan={2}>{t('queues.schedule.weekday')}</TableCell>
            {SHIFTS.map((shift) => (
              <TableCell key={shift.label} colSpan={2} align="center">
                {t(`queues.schedule.${shift.label}`)}
              </TableCell>
            ))}
          </TableRow>
          <TableRow>
            {SHIFTS.flatMap((shift) => [
              <TableCell key={shift.start}>{t('queues.schedule.start')}</TableCell>,
              <TableCell key={shift.end}>{t('queues.schedule.end')}</TableCell>,
            ])}
          </TableRow>
        </TableHead>
        <TableBody>
          {value.map((row, index) => {
            const errors = scheduleRowErrors(row);
            return (
              <TableRow key={row.weekdayEn} data-testid={`${testId}-row-${row.weekdayEn}`}>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{isWeekday(row.weekdayEn) ? t(`queues.schedule.weekdays.${row.weekdayEn}`) : row.weekday}</TableCell>
                {SHIFTS.flatMap((shift) => [
                  cell(row, index, shift.start, `${t(`queues.schedule.${shift.label}`)} ${t('queues.schedule.start')}`, errors[shift.start]),
                  cell(row, index, shift.end, `${t(`queues.schedule.${shift.label}`)} ${t('queues.schedule.end')}`, errors[shift.end]),
                ])}
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <Typography variant="caption" color="text.secondary" sx={{ display: 'block', px: 2, py: 1 }}>
        {t('queues.schedule.closedHint')}
      </Typography>
    </TableContainer>
  );
}
