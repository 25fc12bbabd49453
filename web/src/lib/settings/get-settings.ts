/** `GET /settings` → `[{key, value}]` of the caller's company (plus platform keys for the super user). */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../api';

export const settingSchema = z.object({ key: z.string(), value: z.nullish(z.string()) });
export type Setting = z.infer<typeof settingSchema>;

export const settingsSchema = z.array(settingSchema);

/** Settings as a key → value map. */
export type SettingsMap = Record<string, string>;

export function toSettingsMap(settings: Setting[]): SettingsMap {
  return Object.fromEntries(settings.map((setting) => [setting.key, setting.value ?? '']));
}

export async function getSettings(): Promise<SettingsMap> {
  return toSettingsMap(await api.get('/settings', { schema: settingsSchema }));
}

export const settingsKeys = { all: ['settings'] as const };

export const settingsQuery = () => queryOptions({ queryKey: settingsKeys.all, queryFn: getSettings });

export function useSettings() {
  return useQuery(settingsQuery());
}
