import { useState } from 'react';
import { Autocomplete, Avatar, Box, Button, Chip, Divider, Drawer, IconButton, List, ListItem, ListItemText, Stack, TextField, Typography } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api';
import { toastError } from '../../../lib/toast';
import { useTagOptions } from '../../../lib/lookups/options';
import type { Tag } from '../../../lib/lookups/refs';
import { ticketsKeys } from '../api/tickets';
import { useAddTicketNote, useDeleteTicketNote, useTicketNotes } from '../api/notes';
import type { Ticket } from '../types';
import { loadRules } from '../../../lib/wasm/rules';

export const CONTACT_DRAWER_WIDTH = 320;

interface Props {
  ticket: Ticket;
  open: boolean;
  /** Over the conversation (a modal drawer) rather than beside it: on phones and narrow panes. */
  overlay?: boolean;
  onClose: () => void;
}

/**
 * The contact drawer (320 px): contact, tags and the ticket's notes (list, add, delete). Beside
 * the conversation when the pane has room for both, else over it (docs/inbox.md "Layout").
 */
export function ContactDrawer({ ticket, open, overlay = false, onClose }: Props) {
  const { t } = useTranslation();
  const notes = useTicketNotes(ticket.id, ticket.contactId, open);
  const add = useAddTicketNote(ticket.id, ticket.contactId);
  const remove = useDeleteTicketNote(ticket.id, ticket.contactId);
  const tagOptions = useTagOptions();
  const queryClient = useQueryClient();
  const syncTags = useMutation({
    mutationFn: (tags: Tag[]) => api.post('/tags/sync', { contactId: ticket.contactId, tags: tags.map((tag) => ({ id: tag.id })) }),
    onSuccess: (_result, tags) => {
      queryClient.setQueryData<Ticket>(ticketsKeys.detail(ticket.uuid), (current) => (current ? { ...current, contact: { ...current.contact, tags } } : current));
      void queryClient.invalidateQueries({ queryKey: ticketsKeys.lists() });
    },
    onError: toastError,
  });
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    const value = note.trim();
    // The note by the core's rule (`validate_ticket_note`), the same the server applies.
    const [problem] = (await loadRules()).checkForm({ form: 'note', note: value });
    if (problem) return setError(t(`validation.${problem.code}`));
    setError(null);
    add.mutate(value, { onSuccess: () => setNote(''), onError: toastError });
  };

  return (
    <Drawer
      anchor="right"
      variant={overlay ? 'temporary' : 'persistent'}
      open={open}
      onClose={onClose}
      sx={
        overlay
          ? // Over the top bar too, as the modal it is.
            { zIndex: (theme) => theme.zIndex.modal, '& .MuiDrawer-paper': { width: CONTACT_DRAWER_WIDTH, maxWidth: '100%' } }
          : { '& .MuiDrawer-paper': { width: CONTACT_DRAWER_WIDTH, position: 'relative' }, width: open ? CONTACT_DRAWER_WIDTH : 0, flexShrink: 0 }
      }
      data-testid="contact-drawer"
      data-overlay={overlay ? 'true' : 'false'}
    >
      <Stack direction="row" sx={{ alignItems: 'center', p: 1 }}>
        <Typography variant="subtitle1" sx={{ flex: 1 }}>
          {t('tickets.drawer.title')}
        </Typography>
        <IconButton onClick={onClose} aria-label={t('common.close')} data-testid="contact-drawer-close">
          <CloseIcon />
        </IconButton>
      </Stack>
      <Divider />
      <Stack spacing={1} sx={{ p: 2, alignItems: 'center' }}>
        <Avatar src={ticket.contact.urlPicture ?? undefined} sx={{ width: 96, height: 96 }}>
          {ticket.contact.name.slice(0, 1)}
        </Avatar>
        <Typography variant="h6" sx={{ wordBreak: 'break-word', textAlign: 'center' }}>
          {ticket.contact.name}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {ticket.contact.number}
        </Typography>
        <Autocomplete
          multiple
          fullWidth
          size="small"
          options={tagOptions.data ?? []}
          value={ticket.contact.tags}
          onChange={(_e, tags) => syncTags.mutate(tags)}
          getOptionLabel={(tag) => tag.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          renderValue={(tags, getItemProps) =>
            tags.map((tag, index) => {
              const { key, ...itemProps } = getItemProps({ index });
              return <Chip key={key} size="small" label={tag.name} sx={{ bgcolor: tag.color, color: '#fff' }} {...itemProps} />;
            })
          }
          renderInput={(params) => (
            <TextField {...params} label={t('tickets.drawer.tags')} slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'contact-tags' } }} />
          )}
        />
      </Stack>
      <Divider />
      <Box sx={{ p: 2 }}>
        <Typography variant="subtitle2">{t('tickets.drawer.notes')}</Typography>
        <TextField
          fullWidth
          multiline
          minRows={2}
          size="small"
          value={note}
          onChange={(e) => setNote(e.target.value)}
          error={!!error}
          helperText={error ?? undefined}
          placeholder={t('tickets.drawer.notePlaceholder')}
          slotProps={{ htmlInput: { 'data-testid': 'note-input' } }}
          sx={{ mt: 1 }}
        />
        <Button size="small" variant="contained" onClick={() => void submit()} disabled={add.isPending} sx={{ mt: 1 }} data-testid="note-add">
          {t('common.add')}
        </Button>
        <List dense>
          {(notes.data ?? []).map((item) => (
            <ListItem
              key={item.id}
              data-testid={`note-${item.id}`}
              secondaryAction={
                <IconButton edge="end" aria-label={t('common.delete')} onClick={() => remove.mutate(item.id, { onError: toastError })} data-testid={`note-delete-${item.id}`}>
                  <DeleteOutlineIcon fontSize="small" />
                </IconButton>
              }
            >
              <ListItemText primary={item.note} secondary={`${item.user?.name ?? ''} ${new Date(item.createdAt).toLocaleString()}`} />
            </ListItem>
          ))}
        </List>
      </Box>
    </Drawer>
  );
}
