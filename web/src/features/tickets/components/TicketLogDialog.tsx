import { Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, List, ListItem, ListItemText, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useTicketLog } from '../api/tickets';

const LOG_TYPES = ['create', 'chatBot', 'queue', 'open', 'access', 'transfered', 'receivedTransfer', 'pending', 'closed', 'reopen', 'redirect'] as const;
type LogType = (typeof LOG_TYPES)[number];
const isLogType = (value: string): value is LogType => (LOG_TYPES as readonly string[]).includes(value);

const pad = (n: number) => String(n).padStart(2, '0');
function stamp(value: string): string {
  const d = new Date(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${String(d.getFullYear()).slice(2)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `GET /tickets-log/{id}`: what happened to the ticket, with who and which queue. */
export function TicketLogDialog({ ticketId, open, onClose }: { ticketId: number; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const log = useTicketLog(ticketId, open);
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" data-testid="ticket-log-dialog">
      <DialogTitle>{t('tickets.log.title', { id: ticketId })}</DialogTitle>
      <DialogContent>
        {log.isPending ? (
          <CircularProgress />
        ) : (log.data ?? []).length === 0 ? (
          <Typography color="text.secondary">{t('tickets.log.empty')}</Typography>
        ) : (
          <List dense>
            {(log.data ?? []).map((entry) => (
              <ListItem key={entry.id} data-testid="ticket-log-entry">
                <ListItemText
                  primary={t(`tickets.log.types.${isLogType(entry.type) ? entry.type : 'create'}`, { user: entry.user?.name ?? '-', queue: entry.queue?.name ?? '-' })}
                  secondary={stamp(entry.createdAt)}
                />
              </ListItem>
            ))}
          </List>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
