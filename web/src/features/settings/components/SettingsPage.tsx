import { useState } from 'react';
import { Box, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { CompanySchedulesTab } from './CompanySchedulesTab';
import { useSettings } from '../../../lib/settings/get-settings';
import { OptionsTab } from './OptionsTab';

/** /settings: the Options tab, and the company's working hours when they are kept per company. */
export default function SettingsPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState('options');
  const companyHours = useSettings().data?.scheduleType === 'company';
  const shown = tab === 'schedules' && !companyHours ? 'options' : tab;
  return (
    <Stack spacing={2} data-testid="settings-page">
      <Typography variant="h5" component="h1">
        {t('settings.title')}
      </Typography>
      <Tabs value={shown} onChange={(_, value: string) => setTab(value)}>
        <Tab value="options" label={t('settings.tabs.options')} data-testid="settings-tab-options" />
        {companyHours && <Tab value="schedules" label={t('queues.companySchedules.tab')} data-testid="settings-tab-schedules" />}
      </Tabs>
      <Box>
        {shown === 'options' && <OptionsTab />}
        {shown === 'schedules' && <CompanySchedulesTab />}
      </Box>
    </Stack>
  );
}
