import { useState } from 'react';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, LinearProgress, MenuItem, Stack, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { translateError } from '../../../lib/i18n/errors';
import { useConnectionOptions } from '../../../lib/lookups/options';
import { useImportFromPhone } from '../api/contacts';

const CONNECTED = 'CONNECTED';

interface Props {
  onClose: () => void;
}

/**
 * "Import from phone" (spec 1 "Contacts"): the one-to-one chats a connected connection's phone
 * knows become contacts (`POST /contacts/import/chats`). Only connected connections can be chosen;
 * the default one comes chosen, else the first connected. The report stays in the dialog.
 */
export function PhoneImportDialog({ onClose }: Props) {
  const { t } = useTranslation();
  // Read again on open: which connections are connected decides what can be chosen.
  const connections = useConnectionOptions({ fresh: true });
  const importChats = useImportFromPhone();
  const [chosen, setChosen] = useState<number | null>(null);
  const all = connections.data ?? [];
  const connected = all.filter((c) => c.status === CONNECTED);
  const preselected = connected.find((c) => c.isDefault) ?? connected[0];
  // A choice that is no longer connected (the list was read again) falls back to the preselection.
  const whatsappId = connected.find((c) => c.id === chosen)?.id ?? preselected?.id ?? null;
  const report = importChats.data;
  const busy = importChats.isPending;
  const noneConnected = connections.isSuccess && connected.length === 0;

  const submit = () => {
    if (whatsappId === null) return;
    importChats.mutate(whatsappId);
  };

  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="xs" data-testid="contacts-phone-import">
      <DialogTitle>{t('contacts.phoneImport.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <DialogContentText>{t('contacts.phoneImport.help')}</DialogContentText>
          {noneConnected ? (
            <Alert severity="warning" data-testid="contacts-phone-import-none">
              {t('contacts.phoneImport.noConnection')}
            </Alert>
          ) : (
            <TextField
              select
              label={t('contacts.phoneImport.connection')}
              value={whatsappId ?? ''}
              onChange={(event) => setChosen(Number(event.target.value))}
              disabled={busy || !connections.isSuccess}
              slotProps={{ htmlInput: { 'data-testid': 'contacts-phone-import-connection' } }}
            >
              {all.map((c) => (
                <MenuItem key={c.id} value={c.id} disabled={c.status !== CONNECTED} data-testid={`contacts-phone-import-connection-${c.id}`}>
                  {c.status === CONNECTED ? c.name : t('contacts.phoneImport.notConnected', { name: c.name })}
                </MenuItem>
              ))}
            </TextField>
          )}
          {(busy || connections.isPending) && <LinearProgress data-testid="contacts-phone-import-progress" />}
          {busy && <DialogContentText>{t('contacts.phoneImport.running')}</DialogContentText>}
          {importChats.isError && (
            <Alert severity="error" data-testid="contacts-phone-import-error">
              {translateError(importChats.error, t)}
            </Alert>
          )}
          {report && !busy && (
            <Alert severity="success" data-testid="contacts-phone-import-report">
              {t('contacts.phoneImport.report', { chats: report.chats, imported: report.imported, existing: report.existing, ignored: report.ignored })}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy} data-testid="contacts-phone-import-close">
          {report ? t('common.close') : t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={busy || whatsappId === null} data-testid="contacts-phone-import-submit">
          {t('contacts.phoneImport.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
