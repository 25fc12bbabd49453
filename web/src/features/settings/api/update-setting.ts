/** `PUT /settings/{key}` `{value}`. The cache is updated at once and restored on failure. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api';
import { settingsKeys, type SettingsMap } from '../../../lib/settings/get-settings';

export function updateSetting(key: string, value: string): Promise<unknown> {
  return api.put(`/settings/${encodeURIComponent(key)}`, { value });
}

export function useUpdateSetting() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: { key: string; value: string }) => updateSetting(key, value),
    onMutate: async ({ key, value }) => {
      await queryClient.cancelQueries({ queryKey: settingsKeys.all });
      const previous = queryClient.getQueryData<SettingsMap>(settingsKeys.all);
      queryClient.setQueryData<SettingsMap>(settingsKeys.all, (data) => ({ ...data, [key]: value }));
      return { previous };
    },
    onError: (_error, _variables, context) => {
      if (context?.previous) queryClient.setQueryData(settingsKeys.all, context.previous);
    },
  });
}
