import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslation } from 'react-i18next';

interface Props {
  open: boolean;
  userName: string | null | undefined;
  queueName: string | null | undefined;
  onClose: () => void;
}

/** "Ticket already open": another attendant has the contact's ticket (spec 1 "Dialogs"). */
export function TicketAlreadyOpenDialog({ open, userName, queueName, onClose }: Props) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} data-testid="ticket-already-open">
      <DialogTitle>{t('tickets.alreadyOpen.title')}</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {t('tickets.alreadyOpen.message', { user: userName || t('tickets.noUser'), queue: queueName || t('tickets.noQueue') })}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained" data-testid="ticket-already-open-ok">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
