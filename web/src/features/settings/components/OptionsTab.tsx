import type { ReactNode } from 'react';
import { Grid, Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PageLoader } from '../../../components/ui';
import { translateError } from '../../../lib/i18n/errors';
import { useCan } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useSettings } from '../../../lib/settings/get-settings';
import { useUpdateSetting } from '../api/update-setting';
import { useSettingsRealtime } from '../hooks/useSettingsRealtime';
import { GENERAL_OPTIONS, LGPD_OPTIONS, LGPD_SWITCH, MESSAGE_OPTIONS, PLATFORM_OPTIONS, type SettingDefinition } from '../options';
import { SettingField } from './SettingField';

function Section({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid={testId}>
      <Typography variant="subtitle1" sx={{ mb: 2, fontWeight: 600 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** Settings "Options" tab (spec 2): every change is saved with `PUT /settings/{key}`. */
export function OptionsTab() {
  const { t } = useTranslation();
  const settings = useSettings();
  const update = useUpdateSetting();
  const isPlatformAdmin = useCan('settings:platform');
  useSettingsRealtime();

  if (settings.isPending) return <PageLoader />;
  if (settings.isError) return <Typography color="error">{translateError(settings.error, t)}</Typography>;

  const values = settings.data;
  const save = (key: string, value: string) =>
    update.mutate(
      { key, value },
      {
        onSuccess: () => toast.success(t('settings.saved')),
        onError: (error) => toastError(error),
      },
    );

  const grid = (definitions: SettingDefinition[], columns: { sm: number; md: number }) => (
    <Grid container spacing={2}>
      {definitions.map((definition) => (
        <Grid key={definition.key} size={{ xs: 12, ...columns }}>
          <SettingField definition={definition} value={values[definition.key]} onSave={(value) => save(definition.key, value)} />
        </Grid>
      ))}
    </Grid>
  );

  const lgpdEnabled = (values[LGPD_SWITCH.key] ?? LGPD_SWITCH.fallback) === 'enabled';

  return (
    <Stack spacing={2} data-testid="settings-options">
      <Section title={t('settings.sections.general')} testId="settings-section-general">
        {grid(GENERAL_OPTIONS, { sm: 6, md: 4 })}
      </Section>
      <Section title={t('settings.sections.lgpd')} testId="settings-section-lgpd">
        <Stack spacing={2}>
          {grid([LGPD_SWITCH], { sm: 6, md: 4 })}
          {lgpdEnabled && grid(LGPD_OPTIONS, { sm: 6, md: 6 })}
        </Stack>
      </Section>
      <Section title={t('settings.sections.messages')} testId="settings-section-messages">
        {grid(MESSAGE_OPTIONS, { sm: 12, md: 6 })}
      </Section>
      {isPlatformAdmin && (
        <Section title={t('settings.sections.platform')} testId="settings-section-platform">
          {grid(PLATFORM_OPTIONS, { sm: 6, md: 4 })}
        </Section>
      )}
    </Stack>
  );
}
