import { useState } from 'react';
import { Box, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { OptionsTab } from './OptionsTab';

/** /settings: only the Options tab is built in this version. */
export default function SettingsPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState('options');
  return (
    <Stack spacing={2} data-testid="settings-page">
      <Typography variant="h5" component="h1">
        {t('settings.title')}
      </Typography>
      <Tabs value={tab} onChange={(_, value: string) => setTab(value)}>
        <Tab value="options" label={t('settings.tabs.options')} data-testid="settings-tab-options" />
      </Tabs>
      <Box>{tab === 'options' && <OptionsTab />}</Box>
    </Stack>
  );
}
