import { useEffect, useRef } from 'react';
import { Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useConnections } from '../api/connections';

interface QrCodeDialogProps {
  connectionId: number;
  onClose: () => void;
}

/**
 * The QR code of a connection waiting to be paired. The list cache is kept live by
 * `company-{id}-whatsappSession`, so a new QR replaces the old one; the dialog closes itself
 * once the connection is CONNECTED or its QR becomes empty (spec 2 "Connection status display").
 */
export function QrCodeDialog({ connectionId, onClose }: QrCodeDialogProps) {
  const { t } = useTranslation();
  const connections = useConnections();
  const connection = connections.data?.find((c) => c.id === connectionId);
  const qrcode = connection?.qrcode ?? '';
  const connected = connection?.status === 'CONNECTED';
  /** Whether a QR was shown: only a QR that becomes empty closes the dialog, not one not there yet. */
  const shown = useRef(false);

  useEffect(() => {
    if (qrcode) shown.current = true;
    if (connected || (shown.current && !qrcode)) onClose();
  }, [qrcode, connected, onClose]);

  return (
    <Dialog open onClose={onClose} data-testid="qrcode-dialog">
      <DialogTitle>{t('connections.qr.title', { name: connection?.name ?? '' })}</DialogTitle>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('connections.qr.instructions')}
        </Typography>
        <Box sx={{ display: 'flex', justifyContent: 'center', alignItems: 'center', minWidth: 264, minHeight: 264 }}>
          {connection?.qrcode ? (
            <Box component="img" src={connection.qrcode} alt={t('connections.qr.alt')} sx={{ width: 256, height: 256 }} data-testid="qrcode-image" />
          ) : (
            <CircularProgress aria-label={t('connections.qr.waiting')} />
          )}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="qrcode-dialog-close">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
