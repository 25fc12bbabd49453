import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslation } from 'react-i18next';

interface Props {
  open: boolean;
  busy?: boolean;
  onClose: () => void;
  onResolve: (sendFarewellMessage: boolean) => void;
}

/** Resolve with or without the farewell message (spec 1 §4). */
export function ResolveDialog({ open, busy, onClose, onResolve }: Props) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} data-testid="resolve-dialog">
      <DialogTitle>{t('tickets.resolve.title')}</DialogTitle>
      <DialogContent>
        <DialogContentText>{t('tickets.resolve.message')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button disabled={busy} onClick={() => onResolve(false)} data-testid="resolve-without-farewell">
          {t('tickets.resolve.withoutFarewell')}
        </Button>
        <Button disabled={busy} variant="contained" onClick={() => onResolve(true)} data-testid="resolve-with-farewell">
          {t('tickets.resolve.withFarewell')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
