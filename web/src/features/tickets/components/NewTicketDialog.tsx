import { useState } from 'react';
import { Autocomplete, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../lib/api';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { useAuthenticatedSession } from '../../../lib/session';
import { toastError } from '../../../lib/toast';
import { useConnectionOptions, useContactSearch, type ContactOption } from '../../../lib/lookups/options';
import { useCreateTicket } from '../api/tickets';
import { otherOpenTicketSchema, type OtherOpenTicket } from '../types';
import { TicketAlreadyOpenDialog } from './TicketAlreadyOpenDialog';

interface Props {
  open: boolean;
  onClose: () => void;
}

/**
 * New ticket (spec 1 §5): a contact found from 3 characters (500 ms debounce), a queue and a
 * connection, all required. A 409 `ERR_OTHER_OPEN_TICKET` opens the existing ticket when it is the
 * user's, else says who has it.
 */
export function NewTicketDialog({ open, onClose }: Props) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const session = useAuthenticatedSession();
  const user = session.user;
  const queues = user.queues ?? [];
  // A user in no queue (an admin who set none up yet) opens tickets without one, as the server
  // allows; with queues, one must be chosen.
  const needsQueue = queues.length > 0;
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, 500);
  const contacts = useContactSearch(search);
  const connections = useConnectionOptions();
  const create = useCreateTicket();
  const [contact, setContact] = useState<ContactOption | null>(null);
  const [queueId, setQueueId] = useState<number | ''>(queues.length === 1 ? queues[0].id : '');
  const [whatsappId, setWhatsappId] = useState<number | ''>(user.whatsappId ?? '');
  const [touched, setTouched] = useState(false);
  const [other, setOther] = useState<OtherOpenTicket | null>(null);

  const reset = () => {
    setInput('');
    setContact(null);
    setTouched(false);
  };
  const close = () => {
    reset();
    onClose();
  };

  const submit = () => {
    setTouched(true);
    if (!contact || (needsQueue && queueId === '') || whatsappId === '') return;
    create.mutate(
      { contactId: contact.id, queueId: queueId === '' ? null : queueId, whatsappId, userId: user.id, status: 'open' },
      {
        onSuccess: (ticket) => {
          close();
          navigate(`/tickets/${ticket.uuid}`);
        },
        onError: (error) => {
          if (isApiError(error) && error.code === 'ERR_OTHER_OPEN_TICKET') {
            const body = error.body as { ticket?: unknown } | undefined;
            const existing = otherOpenTicketSchema.safeParse(body?.ticket);
            if (existing.success) {
              if (existing.data.userId === user.id) {
                close();
                navigate(`/tickets/${existing.data.uuid}`);
              } else {
                setOther(existing.data);
              }
              return;
            }
          }
          toastError(error);
        },
      },
    );
  };

  const typed = input.trim().length;
  return (
    <>
      <Dialog open={open} onClose={close} fullWidth maxWidth="xs" data-testid="new-ticket-dialog">
        <DialogTitle>{t('tickets.newTicket.title')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ mt: 1 }}>
            <Autocomplete
              options={typed >= 3 ? (contacts.data ?? []) : []}
              value={contact}
              onChange={(_e, value) => setContact(value)}
              inputValue={input}
              onInputChange={(_e, value) => setInput(value)}
              getOptionLabel={(option) => (option.number ? `${option.name} - ${option.number}` : option.name)}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              filterOptions={(options) => options}
              loading={contacts.isFetching}
              noOptionsText={typed < 3 ? t('tickets.newTicket.typeMore') : t('tickets.newTicket.noContacts')}
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('tickets.newTicket.contact')}
                  error={touched && !contact}
                  helperText={touched && !contact ? t('validation.REQUIRED') : undefined}
                  slotProps={{
                    ...params.slotProps,
                    htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'new-ticket-contact' },
                    input: {
                      ...params.slotProps.input,
                      endAdornment: (
                        <>
                          {contacts.isFetching ? <CircularProgress size={18} /> : null}
                          {params.slotProps.input.endAdornment}
                        </>
                      ),
                    },
                  }}
                />
              )}
            />
            {needsQueue && (
              <TextField
                select
                label={t('tickets.newTicket.queue')}
                value={queueId}
                onChange={(e) => setQueueId(Number(e.target.value))}
                error={touched && queueId === ''}
                helperText={touched && queueId === '' ? t('tickets.newTicket.queueRequired') : undefined}
                slotProps={{ htmlInput: { 'data-testid': 'new-ticket-queue' } }}
              >
                {queues.map((q) => (
                  <MenuItem key={q.id} value={q.id}>
                    {q.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <TextField
              select
              label={t('tickets.newTicket.connection')}
              value={whatsappId}
              onChange={(e) => setWhatsappId(Number(e.target.value))}
              error={touched && whatsappId === ''}
              helperText={touched && whatsappId === '' ? t('tickets.newTicket.connectionRequired') : undefined}
              slotProps={{ htmlInput: { 'data-testid': 'new-ticket-connection' } }}
            >
              {(connections.data ?? []).map((c) => (
                <MenuItem key={c.id} value={c.id}>
                  {c.name}
                </MenuItem>
              ))}
            </TextField>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={close}>{t('common.cancel')}</Button>
          <Button variant="contained" onClick={submit} disabled={!contact || create.isPending} data-testid="new-ticket-submit">
            {t('tickets.newTicket.submit')}
          </Button>
        </DialogActions>
      </Dialog>
      <TicketAlreadyOpenDialog open={other !== null} userName={other?.user?.name} queueName={other?.queue?.name} onClose={() => setOther(null)} />
    </>
  );
}
