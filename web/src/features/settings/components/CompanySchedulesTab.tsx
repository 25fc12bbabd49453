import { useState } from 'react';
import { Button, Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PageLoader } from '../../../components/ui';
import { translateError } from '../../../lib/i18n/errors';
import { useSession } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useCompanySchedules, useSaveCompanySchedules } from '../../../lib/business-hours/api';
import type { ScheduleRow } from '../../../lib/business-hours/week';
import { scheduleRowErrors } from '../../../lib/business-hours/rows';
import { ScheduleEditor } from '../../../components/ScheduleEditor';

/**
 * The company's working hours (settings, shown when `scheduleType` is company): the week's two
 * shifts per day, saved with `PUT /companies/{id}/schedules`.
 */
export function CompanySchedulesTab() {
  const session = useSession();
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  const schedules = useCompanySchedules(companyId);
  if (companyId === null || schedules.isPending) return <PageLoader />;
  if (schedules.isError) return <ErrorText error={schedules.error} />;
  // Keyed by the loaded week, so a reload starts the editor afresh.
  return <CompanySchedulesForm key={JSON.stringify(schedules.data)} companyId={companyId} initial={schedules.data} />;
}

function ErrorText({ error }: { error: unknown }) {
  const { t } = useTranslation();
  return <Typography color="error">{translateError(error, t)}</Typography>;
}

function CompanySchedulesForm({ companyId, initial }: { companyId: number; initial: ScheduleRow[] }) {
  const { t } = useTranslation();
  const [rows, setRows] = useState(initial);
  const save = useSaveCompanySchedules(companyId);
  const valid = rows.every((row) => Object.keys(scheduleRowErrors(row)).length === 0);

  const submit = () =>
    save.mutate(rows, {
      onSuccess: () => toast.success(t('queues.companySchedules.saved')),
      onError: (error) => toastError(error),
    });

  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="company-schedules">
      <Stack spacing={2}>
        <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
          {t('queues.companySchedules.tab')}
        </Typography>
        <ScheduleEditor value={rows} onChange={setRows} disabled={save.isPending} testId="company-schedule" />
        <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
          <Button variant="contained" onClick={submit} disabled={!valid || save.isPending} data-testid="company-schedules-save">
            {t('common.save')}
          </Button>
        </Stack>
      </Stack>
    </Paper>
  );
}
