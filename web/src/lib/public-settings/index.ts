/**
 * Public (unauthenticated) settings: `GET /public-settings/{key}` → `{key, value}` through the
 * client without credentials. A failed read yields null so callers use their defaults.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { isApiError, publicApi } from '../api';

export const PUBLIC_SETTING_KEYS = [
  'primaryColorLight',
  'primaryColorDark',
  'appName',
  'appLogoLight',
  'appLogoDark',
  'appLogoFavicon',
  'allowSignup',
] as const;
export type PublicSettingKey = (typeof PUBLIC_SETTING_KEYS)[number];

export const publicSettingSchema = z.object({
  key: z.optional(z.string()),
  value: z.nullish(z.string()),
});

export async function getPublicSetting(key: PublicSettingKey): Promise<string | null> {
  try {
    const setting = await publicApi.get(`/public-settings/${encodeURIComponent(key)}`, { schema: publicSettingSchema });
    return setting.value ?? null;
  } catch (error) {
    // 404: the key has no value (or is not public); anything else is worth a note.
    if (!(isApiError(error) && error.status === 404)) console.warn(`public setting ${key} unavailable, using the default`, error);
    return null;
  }
}

export const publicSettingQuery = (key: PublicSettingKey) =>
  queryOptions({
    queryKey: ['public-settings', key],
    queryFn: () => getPublicSetting(key),
    staleTime: 5 * 60_000,
    retry: false,
  });

/** The value, or null while loading or when the read failed. */
export function usePublicSetting(key: PublicSettingKey): string | null {
  return useQuery(publicSettingQuery(key)).data ?? null;
}
