import { useState } from 'react';
import {
  Box,
  Chip,
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
import EditIcon from '@mui/icons-material/Edit';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, ListPageHeader, PageLoader, TableStatusRows } from '../../../../components/ui';
import { useListPage } from '../../../../lib/hooks/useListPage';
import { toast, toastError } from '../../../../lib/toast';
import { useCan } from '../../../../lib/session';
import { tagsInfiniteQuery, useDeleteTag } from '../api/tags';
import { useTagsRealtime } from '../hooks/useTagsRealtime';
import type { Tag } from '../types';
import { TagModal } from './TagModal';

/** Tags (spec 1 route /tags): search, infinite scroll, add, edit, delete. */
export default function TagsPage() {
  const { t } = useTranslation();
  const { search, setSearch, query: tags, rows, onScroll, loading } = useListPage({ query: tagsInfiniteQuery, rows: (page) => page.tags });
  const remove = useDeleteTag();
  const canDelete = useCan('tags:delete');
  const [modal, setModal] = useState<{ tag: Tag | null } | null>(null);
  const [toDelete, setToDelete] = useState<Tag | null>(null);
  useTagsRealtime();

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
      <ListPageHeader
        title={t('tags.title')}
        search={search}
        onSearch={setSearch}
        searchPlaceholder={t('tags.search')}
        addLabel={t('tags.add')}
        onAdd={() => setModal({ tag: null })}
        testId="tags"
      />
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
                    {canDelete && (
                      <Tooltip title={t('common.delete')}>
                        <IconButton size="small" onClick={() => setToDelete(tag)} aria-label={t('common.delete')} data-testid={`tags-delete-${tag.id}`}>
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              ))}
              <TableStatusRows query={tags} rowCount={rows.length} empty={t('tags.empty')} colSpan={3} testId="tags" />
            </TableBody>
          </Table>
          {loading && (
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
