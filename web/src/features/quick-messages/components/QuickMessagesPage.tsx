import { useState } from 'react';
import {
  Box,
  IconButton,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
} from '@mui/material';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import EditIcon from '@mui/icons-material/Edit';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, ListPageHeader, PageLoader, TableStatusRows } from '../../../components/ui';
import { useListPage } from '../../../lib/hooks/useListPage';
import { toast, toastError } from '../../../lib/toast';
import { quickMessagesInfiniteQuery, useDeleteQuickMessage } from '../api/quick-messages';
import { useQuickMessagesRealtime } from '../hooks/useQuickMessagesRealtime';
import type { QuickMessage } from '../types';
import { QuickMessageDialog } from './QuickMessageDialog';

/** Quick messages (spec 3 §2.5, route /quick-messages): search, infinite scroll, add, edit, delete. */
export default function QuickMessagesPage() {
  const { t } = useTranslation();
  const { search, setSearch, query: list, rows, onScroll, loading } = useListPage({ query: quickMessagesInfiniteQuery, rows: (page) => page.records });
  const remove = useDeleteQuickMessage();
  const [modal, setModal] = useState<{ quickMessage: QuickMessage | null } | null>(null);
  const [toDelete, setToDelete] = useState<QuickMessage | null>(null);
  useQuickMessagesRealtime();

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('quickMessages.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="quick-messages-page">
      <ListPageHeader
        title={t('quickMessages.title')}
        search={search}
        onSearch={setSearch}
        searchPlaceholder={t('quickMessages.search')}
        addLabel={t('quickMessages.add')}
        onAdd={() => setModal({ quickMessage: null })}
        testId="quick-messages"
      />
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }} data-testid="quick-messages-table-container">
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('quickMessages.shortcode')}</TableCell>
                <TableCell>{t('quickMessages.media')}</TableCell>
                <TableCell align="center">{t('quickMessages.geral')}</TableCell>
                <TableCell align="center">{t('quickMessages.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((quickMessage) => (
                <TableRow key={quickMessage.id} hover data-testid={`quick-messages-row-${quickMessage.id}`}>
                  <TableCell>{quickMessage.shortcode}</TableCell>
                  <TableCell>{quickMessage.isMedia ? quickMessage.mediaName : t('quickMessages.noMedia')}</TableCell>
                  <TableCell align="center">
                    {quickMessage.geral && <CheckCircleIcon fontSize="small" color="success" aria-label={t('quickMessages.geral')} data-testid={`quick-messages-shared-${quickMessage.id}`} />}
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setModal({ quickMessage })} aria-label={t('common.edit')} data-testid={`quick-messages-edit-${quickMessage.id}`}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" onClick={() => setToDelete(quickMessage)} aria-label={t('common.delete')} data-testid={`quick-messages-delete-${quickMessage.id}`}>
                        <DeleteOutlineIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              <TableStatusRows query={list} rowCount={rows.length} empty={t('quickMessages.empty')} colSpan={4} testId="quick-messages" />
            </TableBody>
          </Table>
          {loading && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>
      {modal && <QuickMessageDialog quickMessage={modal.quickMessage} onClose={() => setModal(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('quickMessages.deleteTitle', { name: toDelete?.shortcode ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="quick-messages-delete-dialog"
      >
        {t('quickMessages.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
