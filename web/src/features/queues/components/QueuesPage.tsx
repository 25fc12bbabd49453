import { useState } from 'react';
import {
  Box,
  Button,
  IconButton,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditIcon from '@mui/icons-material/Edit';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { translateError } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { useDeleteQueue, useQueueList } from '../api/queues';
import { useQueuesRealtime } from '../hooks/useQueuesRealtime';
import type { Queue } from '../types';
import { QueueDialog } from './QueueDialog';

/** Rows per page: a company has few queues, so the whole list is loaded and paged here. */
export const QUEUES_PAGE_SIZE = 25;

const WIDE_ONLY = { display: { xs: 'none', sm: 'table-cell' } } as const;

/** Queues & chatbot (spec 2 route /queues, admins only): list, add, edit, delete. */
export default function QueuesPage() {
  const { t } = useTranslation();
  const queues = useQueueList();
  const remove = useDeleteQueue();
  const [page, setPage] = useState(0);
  const [dialog, setDialog] = useState<{ queue: Queue | null } | null>(null);
  const [toDelete, setToDelete] = useState<Queue | null>(null);
  useQueuesRealtime();

  const rows = queues.data ?? [];
  // A deletion may leave the last page empty: show the last page that has rows.
  const lastPage = Math.max(0, Math.ceil(rows.length / QUEUES_PAGE_SIZE) - 1);
  const shownPage = Math.min(page, lastPage);
  const pageRows = rows.slice(shownPage * QUEUES_PAGE_SIZE, (shownPage + 1) * QUEUES_PAGE_SIZE);

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('queues.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="queues-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('queues.title')}
        </Typography>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ queue: null })} data-testid="queues-add" sx={{ flexShrink: 0 }}>
          {t('queues.add')}
        </Button>
      </Stack>
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}>
        <TableContainer sx={{ maxHeight: 'calc(100vh - 250px)' }} data-testid="queues-table-container">
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('queues.columns.name')}</TableCell>
                <TableCell align="center">{t('queues.columns.color')}</TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('queues.columns.order')}
                </TableCell>
                <TableCell sx={WIDE_ONLY}>{t('queues.columns.greeting')}</TableCell>
                <TableCell align="center">{t('queues.columns.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {pageRows.map((queue) => (
                <TableRow key={queue.id} hover data-testid={`queues-row-${queue.id}`}>
                  <TableCell>{queue.name}</TableCell>
                  <TableCell align="center">
                    <Tooltip title={queue.color}>
                      <Box
                        component="span"
                        aria-label={queue.color}
                        data-testid={`queues-color-${queue.id}`}
                        sx={{ display: 'inline-block', width: 48, height: 20, borderRadius: 1, bgcolor: queue.color, border: 1, borderColor: 'divider', verticalAlign: 'middle' }}
                      />
                    </Tooltip>
                  </TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {queue.orderQueue ?? '—'}
                  </TableCell>
                  <TableCell sx={{ ...WIDE_ONLY, maxWidth: 320 }}>
                    <Typography variant="body2" noWrap title={queue.greetingMessage} data-testid={`queues-greeting-${queue.id}`}>
                      {queue.greetingMessage}
                    </Typography>
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setDialog({ queue })} aria-label={t('common.edit')} data-testid={`queues-edit-${queue.id}`}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" onClick={() => setToDelete(queue)} aria-label={t('common.delete')} data-testid={`queues-delete-${queue.id}`}>
                        <DeleteOutlineIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              {queues.isError && (
                <TableRow>
                  <TableCell colSpan={5} align="center" data-testid="queues-error">
                    {translateError(queues.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {queues.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={5} align="center" data-testid="queues-empty">
                    {t('queues.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {queues.isPending && <PageLoader />}
        </TableContainer>
        {rows.length > QUEUES_PAGE_SIZE && (
          <TablePagination
            component="div"
            count={rows.length}
            page={shownPage}
            onPageChange={(_, next) => setPage(next)}
            rowsPerPage={QUEUES_PAGE_SIZE}
            rowsPerPageOptions={[]}
            labelDisplayedRows={({ from, to, count }) => t('queues.pagination.range', { from, to, count })}
            getItemAriaLabel={(type) => (type === 'next' ? t('queues.pagination.next') : type === 'previous' ? t('queues.pagination.previous') : type === 'first' ? t('queues.pagination.first') : t('queues.pagination.last'))}
            data-testid="queues-pagination"
          />
        )}
      </Paper>
      {dialog && <QueueDialog queue={dialog.queue} onClose={() => setDialog(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('queues.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="queues-delete-dialog"
      >
        {t('queues.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
