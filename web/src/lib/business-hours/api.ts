/**
 * Working hours kept per company (`scheduleType` = company): `GET /companies/{id}/schedules` →
 * `{schedules}`, `PUT /companies/{id}/schedules` `{schedules}`; and the `scheduleType` setting
 * itself, read from the settings the settings page uses.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../api';
import { useSettings } from '../settings/get-settings';
import { SCHEDULE_TYPES, completeWeek, scheduleRowSchema, type ScheduleRow, type ScheduleType } from './week';

const companySchedulesSchema = z.object({
  schedules: z.pipe(z.nullish(z.array(scheduleRowSchema)), z.transform((v) => v ?? [])),
});

export const companySchedulesKey = (companyId: number) => ['companies', companyId, 'schedules'] as const;

/** The company's week, completed to seven rows (defaults for days never set). */
export function useCompanySchedules(companyId: number | null) {
  return useQuery({
    queryKey: companySchedulesKey(companyId ?? 0),
    queryFn: async ({ signal }) => completeWeek((await api.get(`/companies/${companyId ?? 0}/schedules`, { schema: companySchedulesSchema, signal })).schedules),
    enabled: companyId !== null,
  });
}

export function useSaveCompanySchedules(companyId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (schedules: ScheduleRow[]) => api.put(`/companies/${companyId}/schedules`, { schedules }),
    onSuccess: (_data, schedules) => queryClient.setQueryData(companySchedulesKey(companyId), schedules),
  });
}

/** The company's `scheduleType`; undefined while the settings load. Unknown values count as disabled. */
export function useScheduleType(): ScheduleType | undefined {
  const settings = useSettings();
  if (!settings.data) return undefined;
  const value = settings.data.scheduleType;
  return (SCHEDULE_TYPES as readonly string[]).includes(value) ? (value as ScheduleType) : 'disabled';
}
