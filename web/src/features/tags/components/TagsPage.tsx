import { useCallback, useState } from 'react';
import {
  Box,
  Button,
  Chip,
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
import EditIcon from '@mui/icons-material/Edit';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { useNearBottom } from '../../../lib/hooks/useNearBottom';
import { translateError } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { useDeleteTag, useTags } from '../api/tags';
import { useTagsRealtime } from '../hooks/useTagsRealtime';
import type { Tag } from '../types';
import { TagModal } from './TagModal';

/** Tags (spec 1 route /tags): search, infinite scroll, add, edit, delete. */
export default function TagsPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search.trim(), 500);
  const tags = useTags(debounced);
  const remove = useDeleteTag();
  const [modal, setModal] = useState<{ tag: Tag | null } | null>(null);
  const [toDelete, setToDelete] = useState<Tag | null>(null);
  useTagsRealtime();

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = tags;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = useNearBottom(loadMore, 100);
  const rows = tags.data?.pages.flatMap((page) => page.tags) ?? [];

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('tags.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="tags-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('tags.title')}
        </Typography>
        <Stack direction="row" spacing={1}>
          <TextField
            size="small"
            placeholder={t('tags.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'tags-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setModal({ tag: null })} data-testid="tags-add" sx={{ flexShrink: 0 }}>
            {t('tags.add')}
          </Button>
        </Stack>
      </Stack>
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }} data-testid="tags-table-container">
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('tags.name')}</TableCell>
                <TableCell align="center">{t('tags.kanban')}</TableCell>
                <TableCell align="center">{t('tags.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((tag) => (
                <TableRow key={tag.id} hover data-testid={`tags-row-${tag.id}`}>
                  <TableCell>
                    <Chip size="small" label={tag.name} sx={{ bgcolor: tag.color, color: 'common.white', fontWeight: 600 }} />
                  </TableCell>
                  <TableCell align="center">{tag.kanban === 1 ? t('common.yes') : t('common.no')}</TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setModal({ tag })} aria-label={t('common.edit')} data-testid={`tags-edit-${tag.id}`}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" onClick={() => setToDelete(tag)} aria-label={t('common.delete')} data-testid={`tags-delete-${tag.id}`}>
                        <DeleteOutlineIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              {tags.isError && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="tags-error">
                    {translateError(tags.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {tags.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="tags-empty">
                    {t('tags.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {(tags.isPending || isFetchingNextPage) && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>
      {modal && <TagModal tag={modal.tag} onClose={() => setModal(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('tags.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="tags-delete-dialog"
      >
        {t('tags.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
