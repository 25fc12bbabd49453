import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod/mini';
import { Alert, Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { toastError } from '../../../lib/toast';
import { useConnections, useRequestPairCode } from '../api/connections';
import { formatPairCode, type Connection } from '../types';
import { sessionReasonText } from '../utils/session-reason';

interface QrCodeDialogProps {
  connectionId: number;
  onClose: () => void;
}

/** What the dialog shows: the QR code, or linking by phone number (a number, then the code). */
type Mode = 'qr' | 'code';

/** The pairing code the connection shows, while it is pairing by code. */
function shownCode(connection: Connection | undefined): string | null {
  return connection?.status === 'PAIRING' ? connection.pairingCode : null;
}

/**
 * Pairs a connection (spec 2 "Connection status display"): its QR code, or, with "link with phone
 * number instead", a number to ask a pair code for and the code to type on the phone. The list
 * cache is kept live by `company-{id}-whatsappSession`, so a new QR or code replaces the old one;
 * the dialog closes itself once the connection is CONNECTED, when its QR becomes empty (QR mode),
 * or when a code was shown and the connection stops pairing (the code expired or was refused).
 */
export function QrCodeDialog({ connectionId, onClose }: QrCodeDialogProps) {
  const { t } = useTranslation();
  const connections = useConnections();
  const connection = connections.data?.find((c) => c.id === connectionId);
  const qrcode = connection?.qrcode ?? '';
  const status = connection?.status;
  const code = shownCode(connection);
  const [mode, setMode] = useState<Mode>(() => (code ? 'code' : 'qr'));
  /** Whether a QR was shown: only a QR that becomes empty closes the dialog, not one not there yet. */
  const qrShown = useRef(false);
  /** Whether a pair code was shown: the dialog closes when the connection stops pairing after it. */
  const codeShown = useRef(false);

  useEffect(() => {
    if (qrcode) qrShown.current = true;
    if (code) codeShown.current = true;
    const qrGone = mode === 'qr' && qrShown.current && !qrcode;
    const codeGone = mode === 'code' && codeShown.current && status !== 'PAIRING';
    if (status === 'CONNECTED' || qrGone || codeGone) onClose();
  }, [qrcode, code, status, mode, onClose]);

  const name = connection?.name ?? '';
  return (
    <Dialog open onClose={onClose} data-testid="qrcode-dialog" data-mode={mode}>
      <DialogTitle>{mode === 'qr' ? t('connections.qr.title', { name }) : t('connections.pairCode.title', { name })}</DialogTitle>
      <DialogContent>
        {mode === 'qr' ? (
          <>
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
            <Box sx={{ display: 'flex', justifyContent: 'center', mt: 1 }}>
              <Button onClick={() => setMode('code')} data-testid="qrcode-link-phone">
                {t('connections.pairCode.link')}
              </Button>
            </Box>
          </>
        ) : (
          <PairCodePanel connectionId={connectionId} connection={connection} code={code} onUseQr={() => setMode('qr')} />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="qrcode-dialog-close">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

const numberSchema = z.object({ number: z.string() });
type NumberValues = z.infer<typeof numberSchema>;

interface PairCodePanelProps {
  connectionId: number;
  connection: Connection | undefined;
  /** The code the connection shows, when it shows one. */
  code: string | null;
  /** Back to the QR code (before a code was asked for). */
  onUseQr: () => void;
}

/**
 * Linking by phone number: the number (checked by the server, its field errors shown on the
 * input), then the code shown big as `XXXX-XXXX` with where to type it on the phone. A code asked
 * for again replaces the one shown once it arrives.
 */
function PairCodePanel({ connectionId, connection, code, onUseQr }: PairCodePanelProps) {
  const { t } = useTranslation();
  const request = useRequestPairCode();
  const form = useForm<NumberValues>({ resolver: zodResolver(numberSchema), defaultValues: { number: '' } });
  /** The number the code was asked for (unknown when the dialog opened on a code already shown). */
  const [number, setNumber] = useState<string | null>(null);
  /** Asking for a number: true until a code is asked for (or when the admin wants another number). */
  const [editing, setEditing] = useState(() => code === null);
  /** The code shown when another was asked for: it is not the answer, so it is not shown. */
  const [replacing, setReplacing] = useState<string | null>(null);

  const ask = (value: string) => {
    const before = code;
    request.mutate(
      { id: connectionId, number: value },
      {
        onSuccess: () => {
          setNumber(value.trim());
          setReplacing(before);
          setEditing(false);
        },
        onError: (error) => {
          const field = isApiError(error) ? error.fields.find((f) => f.field === 'number') : undefined;
          if (field) {
            const message = field.code === 'REQUIRED' ? 'REQUIRED' : 'connections.pairCode.invalidNumber';
            form.setError('number', { type: 'server', message }, { shouldFocus: true });
          } else {
            toastError(error);
          }
        },
      },
    );
  };

  const reason = connection ? sessionReasonText(connection, t) : null;
  const reasonAlert = reason && (
    <Alert severity="warning" data-testid="pair-code-reason">
      {reason}
    </Alert>
  );

  if (editing) {
    return (
      <Form form={form} onSubmit={({ number: value }) => ask(value)} testId="pair-code-form">
        <Stack spacing={2} sx={{ pt: 1, minWidth: { sm: 360 } }}>
          <Typography variant="body2" color="text.secondary">
            {t('connections.pairCode.intro')}
          </Typography>
          {reasonAlert}
          <FormTextField
            name="number"
            label={t('connections.pairCode.numberLabel')}
            helperText={t('connections.pairCode.numberHelp')}
            type="tel"
            autoComplete="tel"
            required
            fullWidth
            autoFocus
            testId="pair-code-number"
          />
          <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
            <Button onClick={onUseQr} data-testid="pair-code-use-qr">
              {t('connections.pairCode.backToQr')}
            </Button>
            <Button type="submit" variant="contained" disabled={request.isPending} data-testid="pair-code-request">
              {t('connections.pairCode.request')}
            </Button>
          </Stack>
        </Stack>
      </Form>
    );
  }

  const showing = code !== null && code !== replacing ? code : null;
  return (
    <Stack spacing={2} sx={{ pt: 1, minWidth: { sm: 360 }, alignItems: 'stretch' }}>
      {showing ? (
        <>
          <Typography variant="body2" color="text.secondary">
            {t('connections.pairCode.instructions')}
          </Typography>
          {number && (
            <Typography variant="body2" sx={{ textAlign: 'center' }}>
              {t('connections.pairCode.forNumber', { number })}
            </Typography>
          )}
          <Typography
            component="output"
            aria-label={t('connections.pairCode.codeLabel')}
            data-testid="pair-code"
            sx={{ display: 'block', textAlign: 'center', fontFamily: 'monospace', fontSize: '2.5rem', fontWeight: 700, letterSpacing: '0.2em', py: 1 }}
          >
            {formatPairCode(showing)}
          </Typography>
        </>
      ) : (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 3 }}>
          <CircularProgress aria-label={t('connections.pairCode.waiting')} data-testid="pair-code-waiting" />
        </Box>
      )}
      {reasonAlert}
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
        <Button onClick={() => setEditing(true)} data-testid="pair-code-other-number">
          {t('connections.pairCode.otherNumber')}
        </Button>
        {number && (
          <Button onClick={() => ask(number)} disabled={request.isPending} data-testid="pair-code-new">
            {t('connections.pairCode.newCode')}
          </Button>
        )}
      </Stack>
    </Stack>
  );
}
