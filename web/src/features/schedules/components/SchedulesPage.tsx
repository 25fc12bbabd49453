import { useState } from 'react';
import { Box, Button, Chip, IconButton, InputAdornment, Paper, Stack, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, TextField, Tooltip, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditIcon from '@mui/icons-material/Edit';
import SearchIcon from '@mui/icons-material/Search';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { useListPage } from '../../../lib/hooks/useListPage';
import { translateError } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { schedulesInfiniteQuery, useDeleteSchedule } from '../api/schedules';
import { useSchedulesRealtime } from '../hooks/useSchedulesRealtime';
import { SCHEDULE_STATUSES, type Schedule } from '../../../lib/schedules/schedule';
import { ScheduleDialog } from '../../../components/ScheduleDialog';

const STATUS_COLORS = { PENDENTE: 'default', AGENDADA: 'info', ENVIADA: 'success', ERRO: 'error' } as const;

function when(value: string): string {
  return new Date(value).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** /schedules (spec 3 §2.6): search, a list by next send time, add, edit while pending, delete; `?contactId=` opens the create dialog. */
export default function SchedulesPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const { search, setSearch, query: schedules, rows, onScroll, loading } = useListPage({ query: schedulesInfiniteQuery, rows: (page) => page.schedules });
  const remove = useDeleteSchedule();
  const wanted = Number(params.get('contactId'));
  const [dialog, setDialog] = useState<{ schedule: Schedule | null; contactId: number | null } | null>(() =>
    Number.isInteger(wanted) && wanted > 0 ? { schedule: null, contactId: wanted } : null,
  );
  const [toDelete, setToDelete] = useState<Schedule | null>(null);
  useSchedulesRealtime();

  const closeDialog = () => {
    setDialog(null);
    if (params.has('contactId')) setParams({}, { replace: true });
  };
  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('schedules.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };
  const statusLabel = (status: string) => ((SCHEDULE_STATUSES as readonly string[]).includes(status) ? t(`schedules.statuses.${status as (typeof SCHEDULE_STATUSES)[number]}`) : status);

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="schedules-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('schedules.title')}
        </Typography>
        <Stack direction="row" spacing={1}>
          <TextField
            size="small"
            placeholder={t('schedules.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'schedules-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ schedule: null, contactId: null })} data-testid="schedules-add" sx={{ flexShrink: 0 }}>
            {t('schedules.add')}
          </Button>
        </Stack>
      </Stack>
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }}>
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('schedules.contact')}</TableCell>
                <TableCell>{t('schedules.body')}</TableCell>
                <TableCell>{t('schedules.sendAtColumn')}</TableCell>
                <TableCell>{t('schedules.statusColumn')}</TableCell>
                <TableCell align="center">{t('schedules.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((schedule) => (
                <TableRow key={schedule.id} hover data-testid={`schedules-row-${schedule.id}`}>
                  <TableCell>{schedule.contact?.name ?? ''}</TableCell>
                  <TableCell sx={{ maxWidth: 280, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{schedule.body}</TableCell>
                  <TableCell>{when(schedule.nextSendAt ?? schedule.sentAt ?? schedule.sendAt)}</TableCell>
                  <TableCell>
                    <Tooltip title={schedule.lastError ?? ''}>
                      <Chip size="small" label={statusLabel(schedule.status)} color={STATUS_COLORS[schedule.status as keyof typeof STATUS_COLORS] ?? 'default'} />
                    </Tooltip>
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    {schedule.status === 'PENDENTE' && (
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" onClick={() => setDialog({ schedule, contactId: schedule.contactId })} aria-label={t('common.edit')} data-testid={`schedules-edit-${schedule.id}`}>
                          <EditIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" onClick={() => setToDelete(schedule)} aria-label={t('common.delete')} data-testid={`schedules-delete-${schedule.id}`}>
                        <DeleteOutlineIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              {schedules.isError && (
                <TableRow>
                  <TableCell colSpan={5} align="center" data-testid="schedules-error">
                    {translateError(schedules.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {schedules.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={5} align="center" data-testid="schedules-empty">
                    {t('schedules.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {loading && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>
      {dialog && <ScheduleDialog schedule={dialog.schedule} contactId={dialog.contactId} onClose={closeDialog} />}
      <ConfirmDialog open={!!toDelete} title={t('schedules.deleteTitle')} onClose={() => setToDelete(null)} onConfirm={confirmDelete} confirmLabel={t('common.delete')} busy={remove.isPending} testId="schedules-delete-dialog" />
    </Stack>
  );
}
