import { useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useUserOptions } from '../../../lib/lookups/options';
import { useCompanyQueues } from '../../../lib/lookups/queues';
import type { Ticket } from '../types';

export interface TransferChoice {
  queueId: number;
  userId: number | null;
  message: string;
}

interface Props {
  ticket: Ticket | null;
  busy?: boolean;
  onClose: () => void;
  onTransfer: (choice: TransferChoice) => void;
}

/** Transfer: a queue is required; a user and a message are optional (spec 1 §4). */
export function TransferDialog({ ticket, busy, onClose, onTransfer }: Props) {
  const { t } = useTranslation();
  const open = ticket !== null;
  const queues = useCompanyQueues(open);
  const users = useUserOptions(open);
  const [queueId, setQueueId] = useState<number | ''>('');
  const [userId, setUserId] = useState<number | ''>('');
  const [message, setMessage] = useState('');
  const [touched, setTouched] = useState(false);

  const close = () => {
    setQueueId('');
    setUserId('');
    setMessage('');
    setTouched(false);
    onClose();
  };

  const submit = () => {
    setTouched(true);
    if (queueId === '') return;
    onTransfer({ queueId, userId: userId === '' ? null : userId, message: message.trim() });
    setQueueId('');
    setUserId('');
    setMessage('');
    setTouched(false);
  };

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs" data-testid="transfer-dialog">
      <DialogTitle>{t('tickets.transfer.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <TextField
            select
            label={t('tickets.transfer.queue')}
            value={queueId}
            onChange={(e) => setQueueId(Number(e.target.value))}
            error={touched && queueId === ''}
            helperText={touched && queueId === '' ? t('tickets.newTicket.queueRequired') : undefined}
            slotProps={{ htmlInput: { 'data-testid': 'transfer-queue' } }}
          >
            {queues.map((q) => (
              <MenuItem key={q.id} value={q.id}>
                {q.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            label={t('tickets.transfer.user')}
            value={userId}
            onChange={(e) => setUserId(e.target.value === '' ? '' : Number(e.target.value))}
            slotProps={{ htmlInput: { 'data-testid': 'transfer-user' } }}
          >
            <MenuItem value="">{t('tickets.transfer.noUser')}</MenuItem>
            {(users.data ?? []).map((u) => (
              <MenuItem key={u.id} value={u.id}>
                {u.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={t('tickets.transfer.message')}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            multiline
            minRows={2}
            slotProps={{ htmlInput: { 'data-testid': 'transfer-message' } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={busy} data-testid="transfer-submit">
          {t('tickets.transfer.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
