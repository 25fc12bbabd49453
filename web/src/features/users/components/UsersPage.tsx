import { useState } from 'react';
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
import EditIcon from '@mui/icons-material/Edit';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';
import { UserAvatar } from '../../../components/UserAvatar';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { useListPage } from '../../../lib/hooks/useListPage';
import { translateError } from '../../../lib/i18n/errors';
import { useAuthenticatedSession } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useDeleteUser } from '../api/delete-user';
import { usersInfiniteQuery } from '../api/get-users';
import { useUsersRealtime } from '../hooks/useUsersRealtime';
import type { UserRecord } from '../types';
import { UserModal } from './UserModal';

/** Columns a phone leaves out: id, e-mail (shown under the name), profile and working hours. */
const WIDE_ONLY = { display: { xs: 'none', sm: 'table-cell' } } as const;

/** Users list (spec 1 "Users"): search, infinite scroll, add, edit, delete. */
export default function UsersPage() {
  const { t } = useTranslation();
  const {
    search,
    setSearch,
    query: users,
    rows,
    onScroll,
    loading,
  } = useListPage({ query: usersInfiniteQuery, rows: (page) => page.users, term: (text) => text.trim().toLowerCase() });
  const remove = useDeleteUser();
  // One's own account is never offered for deletion (the server refuses it too).
  const selfId = useAuthenticatedSession().user.id;
  const [modal, setModal] = useState<{ open: boolean; user: UserRecord | null }>({ open: false, user: null });
  const [toDelete, setToDelete] = useState<UserRecord | null>(null);
  useUsersRealtime();

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('users.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="users-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('users.title')}
        </Typography>
        <Stack direction="row" spacing={1}>
          <TextField
            size="small"
            placeholder={t('users.search')}
            sx={{ flex: { xs: 1, sm: 'none' }, minWidth: 0 }}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'users-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setModal({ open: true, user: null })}
            data-testid="users-add"
            sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
          >
            {t('users.add')}
          </Button>
        </Stack>
      </Stack>

      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }} data-testid="users-table-container">
          <Table stickyHeader size="small" data-testid="users-table">
            <TableHead>
              <TableRow>
                <TableCell sx={WIDE_ONLY}>{t('users.columns.id')}</TableCell>
                <TableCell align="center">{t('users.columns.status')}</TableCell>
                <TableCell align="center">{t('users.columns.avatar')}</TableCell>
                <TableCell>{t('users.columns.name')}</TableCell>
                <TableCell sx={WIDE_ONLY}>{t('users.columns.email')}</TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('users.columns.profile')}
                </TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('users.columns.startWork')}
                </TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('users.columns.endWork')}
                </TableCell>
                <TableCell align="center">{t('users.columns.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((user) => (
                <TableRow key={user.id} hover data-testid={`users-row-${user.id}`} data-email={user.email}>
                  <TableCell sx={WIDE_ONLY}>{user.id}</TableCell>
                  <TableCell align="center">
                    <Tooltip title={user.online ? t('users.online') : t('users.offline')}>
                      <Box
                        component="span"
                        aria-label={user.online ? t('users.online') : t('users.offline')}
                        data-online={user.online ? 'true' : 'false'}
                        sx={{
                          display: 'inline-block',
                          width: 10,
                          height: 10,
                          borderRadius: '50%',
                          bgcolor: user.online ? 'success.main' : 'grey.500',
                        }}
                      />
                    </Tooltip>
                  </TableCell>
                  <TableCell align="center">
                    <UserAvatar user={user} size={32} sx={{ mx: 'auto' }} testId={`users-avatar-${user.id}`} />
                  </TableCell>
                  <TableCell>
                    {user.name}
                    <Typography variant="caption" color="text.secondary" component="div" sx={{ display: { sm: 'none' }, wordBreak: 'break-all' }} aria-hidden>
                      {user.email}
                    </Typography>
                  </TableCell>
                  <TableCell sx={WIDE_ONLY}>{user.email}</TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {t(`users.profiles.${user.profile}`)}
                  </TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {user.startWork || '00:00'}
                  </TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {user.endWork || '23:59'}
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setModal({ open: true, user })} data-testid={`users-edit-${user.id}`} aria-label={t('common.edit')}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {user.id === selfId ? (
                      <Tooltip title={t('users.cannotDeleteSelf')}>
                        {/* A disabled button gets no pointer events: the span carries the tooltip. */}
                        <span data-testid={`users-delete-self-${user.id}`}>
                          <IconButton size="small" disabled data-testid={`users-delete-${user.id}`} aria-label={t('users.cannotDeleteSelf')}>
                            <DeleteOutlineIcon fontSize="small" />
                          </IconButton>
                        </span>
                      </Tooltip>
                    ) : (
                      <Tooltip title={t('common.delete')}>
                        <IconButton size="small" onClick={() => setToDelete(user)} data-testid={`users-delete-${user.id}`} aria-label={t('common.delete')}>
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              ))}
              {users.isError && (
                <TableRow>
                  <TableCell colSpan={9} align="center" data-testid="users-error">
                    {translateError(users.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {users.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={9} align="center" data-testid="users-empty">
                    {t('users.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {loading && <PageLoader />}
        </TableContainer>
      </Paper>

      {modal.open && <UserModal open={modal.open} user={modal.user} onClose={() => setModal({ open: false, user: null })} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('users.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="users-delete-dialog"
      >
        {t('users.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
