/** Live updates from `company-{id}-settings` (`{action: "update", setting: {key, value}}`). */
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { settingSchema, settingsKeys, type SettingsMap } from '../../../lib/settings/get-settings';

export function useSettingsRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<{ action?: string; setting?: unknown }>('settings', (event) => {
    if (event.action !== 'update') return;
    const parsed = settingSchema.safeParse(event.setting);
    if (!parsed.success) return;
    const { key, value } = parsed.data;
    queryClient.setQueryData<SettingsMap>(settingsKeys.all, (data) => (data ? { ...data, [key]: value ?? '' } : data));
  });
}
