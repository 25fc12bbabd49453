import { useCallback, useState } from 'react';
import {
  Box,
  Button,
  IconButton,
  InputAdornment,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import EditIcon from '@mui/icons-material/Edit';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { useNearBottom } from '../../../lib/hooks/useNearBottom';
import { translateError } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { useDeleteQuickMessage, useQuickMessages } from '../api/quick-messages';
import { useQuickMessagesRealtime } from '../hooks/useQuickMessagesRealtime';
import type { QuickMessage } from '../types';
import { QuickMessageDialog } from './QuickMessageDialog';

/** Quick messages (spec 3 §2.5, route /quick-messages): search, infinite scroll, add, edit, delete. */
export default function QuickMessagesPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search.trim(), 500);
  const list = useQuickMessages(debounced);
  const remove = useDeleteQuickMessage();
  const [modal, setModal] = useState<{ quickMessage: QuickMessage | null } | null>(null);
  const [toDelete, setToDelete] = useState<QuickMessage | null>(null);
  useQuickMessagesRealtime();

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = useNearBottom(loadMore, 100);
  const rows = list.data?.pages.flatMap((page) => page.records) ?? [];

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
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('quickMessages.title')}
        </Typography>
        <Stack direction="row" spacing={1}>
          <TextField
            size="small"
            placeholder={t('quickMessages.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'quick-messages-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setModal({ quickMessage: null })} data-testid="quick-messages-add" sx={{ flexShrink: 0 }}>
            {t('quickMessages.add')}
          </Button>
        </Stack>
      </Stack>
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
              {list.isError && (
                <TableRow>
                  <TableCell colSpan={4} align="center" data-testid="quick-messages-error">
                    {translateError(list.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {list.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={4} align="center" data-testid="quick-messages-empty">
                    {t('quickMessages.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {(list.isPending || isFetchingNextPage) && (
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
