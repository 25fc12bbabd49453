import { useState } from 'react';
import { useNavigate } from 'react-router';
import {
  Autocomplete,
  Avatar,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  InputAdornment,
  Menu,
  MenuItem,
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
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import BlockIcon from '@mui/icons-material/Block';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditIcon from '@mui/icons-material/Edit';
import FacebookIcon from '@mui/icons-material/Facebook';
import InstagramIcon from '@mui/icons-material/Instagram';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import SearchIcon from '@mui/icons-material/Search';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { initialsOf } from '../../../lib/avatar/initials';
import { useListPage } from '../../../lib/hooks/useListPage';
import { translateError } from '../../../lib/i18n/errors';
import { useAuthenticatedSession, useCan } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useTagOptions } from '../tags/api/tags';
import type { Tag } from '../tags/types';
import {
  contactsInfiniteQuery,
  exportContacts,
  openTicket,
  otherTicketSchema,
  useBlockContact,
  useDeleteContact,
  type OtherTicket,
} from '../api/contacts';
import { useContactsRealtime } from '../hooks/useContactsRealtime';
import { connectionNameOf, type Contact } from '../types';
import { ContactModal } from './ContactModal';
import { PhoneImportDialog } from './PhoneImportDialog';

const WIDE_ONLY = { display: { xs: 'none', sm: 'table-cell' } } as const;

function ChannelIcon({ channel }: { channel: string }) {
  if (channel === 'facebook') return <FacebookIcon fontSize="small" />;
  if (channel === 'instagram') return <InstagramIcon fontSize="small" />;
  return <WhatsAppIcon fontSize="small" />;
}

/**
 * Contacts (spec 1 "Contacts"): search, tag filter, infinite scroll, add/edit, block, delete, open
 * ticket; import from a connection's phone, import or export a spreadsheet.
 */
export function ContactsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useAuthenticatedSession();
  const canDelete = useCan('contacts-page:deleteContact');
  const canExport = useCan('contacts:export');
  const [tagFilter, setTagFilter] = useState<Tag[]>([]);
  const tagIds = tagFilter.map((tag) => tag.id);
  const {
    search,
    setSearch,
    query: contacts,
    rows,
    onScroll,
    loading,
  } = useListPage({ query: (term) => contactsInfiniteQuery(term, tagIds), rows: (page) => page.contacts });
  const tagOptions = useTagOptions();
  const remove = useDeleteContact();
  const block = useBlockContact();
  const [modal, setModal] = useState<{ contact: Contact | null } | null>(null);
  const [toDelete, setToDelete] = useState<Contact | null>(null);
  const [toBlock, setToBlock] = useState<Contact | null>(null);
  const [otherTicket, setOtherTicket] = useState<OtherTicket | null>(null);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [opening, setOpening] = useState<number | null>(null);
  const [phoneImport, setPhoneImport] = useState(false);
  useContactsRealtime();

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('contacts.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  const confirmBlock = () => {
    if (!toBlock) return;
    const active = !toBlock.active;
    block.mutate(
      { id: toBlock.id, active },
      {
        onSuccess: () => toast.success(active ? t('contacts.unblocked') : t('contacts.blocked')),
        onError: (error) => toastError(error),
        onSettled: () => setToBlock(null),
      },
    );
  };

  /** `POST /tickets`; on 409 the existing ticket opens when it is ours, else who has it is shown. */
  const startTicket = async (contact: Contact) => {
    setOpening(contact.id);
    try {
      const ticket = await openTicket(contact, user.id);
      await navigate(`/tickets/${ticket.uuid}`);
    } catch (error) {
      const other = isApiError(error) && error.status === 409 ? otherTicketSchema.safeParse(error.body) : null;
      if (other?.success) {
        if (other.data.ticket.userId === user.id) await navigate(`/tickets/${other.data.ticket.uuid}`);
        else setOtherTicket(other.data.ticket);
      } else {
        toastError(error);
      }
    } finally {
      setOpening(null);
    }
  };

  const onExport = async () => {
    setMenu(null);
    try {
      await exportContacts();
    } catch (error) {
      toastError(error);
    }
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="contacts-page">
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('contacts.title')}
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
          <Autocomplete
            multiple
            size="small"
            sx={{ minWidth: 200 }}
            options={tagOptions.data ?? []}
            value={tagFilter}
            onChange={(_, value) => setTagFilter(value)}
            getOptionLabel={(option) => option.name}
            isOptionEqualToValue={(option, value) => option.id === value.id}
            renderInput={(params) => (
              <TextField
                {...params}
                placeholder={tagFilter.length ? undefined : t('contacts.filterTags')}
                slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'contacts-tag-filter' } }}
              />
            )}
          />
          <TextField
            size="small"
            placeholder={t('contacts.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'contacts-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="outlined" endIcon={<ArrowDropDownIcon />} onClick={(event) => setMenu(event.currentTarget)} data-testid="contacts-import-export" sx={{ flexShrink: 0 }}>
            {t('contacts.importExport')}
          </Button>
          <Menu anchorEl={menu} open={!!menu} onClose={() => setMenu(null)}>
            <MenuItem
              onClick={() => {
                setMenu(null);
                setPhoneImport(true);
              }}
              data-testid="contacts-import-phone"
            >
              {t('contacts.importFromPhone')}
            </MenuItem>
            <MenuItem
              onClick={() => {
                setMenu(null);
                void navigate('/contacts/import');
              }}
              data-testid="contacts-import"
            >
              {t('contacts.importSpreadsheet')}
            </MenuItem>
            {canExport && (
              <MenuItem onClick={() => void onExport()} data-testid="contacts-export">
                {t('contacts.exportSpreadsheet')}
              </MenuItem>
            )}
          </Menu>
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setModal({ contact: null })} data-testid="contacts-add" sx={{ flexShrink: 0 }}>
            {t('contacts.add')}
          </Button>
        </Stack>
      </Stack>

      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }} data-testid="contacts-table-container">
          <Table stickyHeader size="small" data-testid="contacts-table">
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox" />
                <TableCell>{t('contacts.columns.name')}</TableCell>
                <TableCell sx={WIDE_ONLY}>{t('contacts.columns.number')}</TableCell>
                <TableCell sx={WIDE_ONLY}>{t('contacts.columns.email')}</TableCell>
                <TableCell sx={WIDE_ONLY}>{t('contacts.columns.connection')}</TableCell>
                <TableCell align="center">{t('contacts.columns.status')}</TableCell>
                <TableCell align="center">{t('contacts.columns.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((contact) => (
                <TableRow key={contact.id} hover data-testid={`contacts-row-${contact.id}`} data-active={contact.active ? 'true' : 'false'}>
                  <TableCell padding="checkbox">
                    <Avatar src={contact.urlPicture ?? contact.profilePicUrl ?? undefined} sx={{ width: 32, height: 32 }} alt={contact.name}>
                      {initialsOf(contact.name)}
                    </Avatar>
                  </TableCell>
                  <TableCell>
                    {contact.name}
                    {contact.tags.length > 0 && (
                      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 0.5 }}>
                        {contact.tags.map((tag) => (
                          <Chip key={tag.id} size="small" label={tag.name} sx={{ bgcolor: tag.color, color: 'common.white', height: 18, fontSize: 11 }} />
                        ))}
                      </Box>
                    )}
                  </TableCell>
                  <TableCell sx={WIDE_ONLY}>{contact.number}</TableCell>
                  <TableCell sx={WIDE_ONLY}>{contact.email}</TableCell>
                  <TableCell sx={WIDE_ONLY}>{connectionNameOf(contact)}</TableCell>
                  <TableCell align="center">
                    {contact.active ? (
                      <Tooltip title={t('contacts.active')}>
                        <CheckCircleIcon color="success" fontSize="small" aria-label={t('contacts.active')} />
                      </Tooltip>
                    ) : (
                      <Tooltip title={t('contacts.inactive')}>
                        <BlockIcon color="error" fontSize="small" aria-label={t('contacts.inactive')} />
                      </Tooltip>
                    )}
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('contacts.openTicket')}>
                      <span>
                        <IconButton
                          size="small"
                          onClick={() => void startTicket(contact)}
                          disabled={opening === contact.id}
                          aria-label={t('contacts.openTicket')}
                          data-testid={`contacts-open-ticket-${contact.id}`}
                        >
                          <ChannelIcon channel={contact.channel} />
                        </IconButton>
                      </span>
                    </Tooltip>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setModal({ contact })} aria-label={t('common.edit')} data-testid={`contacts-edit-${contact.id}`}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={contact.active ? t('contacts.block') : t('contacts.unblock')}>
                      <IconButton
                        size="small"
                        onClick={() => setToBlock(contact)}
                        aria-label={contact.active ? t('contacts.block') : t('contacts.unblock')}
                        data-testid={`contacts-block-${contact.id}`}
                      >
                        {contact.active ? <BlockIcon fontSize="small" /> : <LockOpenIcon fontSize="small" />}
                      </IconButton>
                    </Tooltip>
                    {canDelete && (
                      <Tooltip title={t('common.delete')}>
                        <IconButton size="small" onClick={() => setToDelete(contact)} aria-label={t('common.delete')} data-testid={`contacts-delete-${contact.id}`}>
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              ))}
              {contacts.isError && (
                <TableRow>
                  <TableCell colSpan={7} align="center" data-testid="contacts-error">
                    {translateError(contacts.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {contacts.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={7} align="center" data-testid="contacts-empty">
                    {t('contacts.empty')}
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

      {modal && <ContactModal contact={modal.contact} onClose={() => setModal(null)} />}
      {phoneImport && <PhoneImportDialog onClose={() => setPhoneImport(false)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('contacts.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="contacts-delete-dialog"
      >
        {t('contacts.deleteText')}
      </ConfirmDialog>
      <ConfirmDialog
        open={!!toBlock}
        title={toBlock?.active ? t('contacts.blockTitle', { name: toBlock.name }) : t('contacts.unblockTitle', { name: toBlock?.name ?? '' })}
        onClose={() => setToBlock(null)}
        onConfirm={confirmBlock}
        confirmLabel={toBlock?.active ? t('contacts.block') : t('contacts.unblock')}
        busy={block.isPending}
        testId="contacts-block-dialog"
      />
      <Dialog open={!!otherTicket} onClose={() => setOtherTicket(null)} data-testid="contacts-other-ticket">
        <DialogTitle>{t('contacts.otherTicket.title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {t('contacts.otherTicket.message', {
              user: otherTicket?.user?.name ?? t('contacts.otherTicket.noUser'),
              queue: otherTicket?.queue?.name ?? t('contacts.otherTicket.noQueue'),
            })}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={() => setOtherTicket(null)} data-testid="contacts-other-ticket-close">
            {t('common.close')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
