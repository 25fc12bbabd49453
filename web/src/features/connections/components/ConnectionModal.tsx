import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  InputAdornment,
  Stack,
  Tab,
  Tabs,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useTranslation } from 'react-i18next';
import { Form, FormSelectField, FormSwitchField, FormTextField } from '../../../components/ui';
import { applyServerFieldErrors } from '../../../lib/forms';
import { toast, toastError } from '../../../lib/toast';
import { useQueues } from '../../users/api/get-queues';
import {
  CONNECTION_FORM_FIELDS,
  connectionBody,
  connectionFormSchema,
  emptyConnectionForm,
  useConnection,
  useRegenerateToken,
  useSaveConnection,
  type ConnectionFormValues,
} from '../api/connections';
import { connectionQueueIds, type Connection } from '../types';

interface ConnectionModalProps {
  /** The connection to edit; null to create one. */
  connection: Connection | null;
  /** The channel of a new connection. */
  channel: string;
  onClose: () => void;
}

function formValuesOf(connection: Connection): ConnectionFormValues {
  return {
    name: connection.name,
    isDefault: connection.isDefault,
    greetingMessage: connection.greetingMessage,
    complationMessage: connection.complationMessage,
    outOfHoursMessage: connection.outOfHoursMessage,
    ratingMessage: connection.ratingMessage,
    allowGroup: connection.allowGroup,
    groupAsTicket: connection.groupAsTicket,
    queueIds: connectionQueueIds(connection),
  };
}

/** Create or edit a connection (spec 2 "Connection dialog"); the general tab in this version. */
export function ConnectionModal({ connection, channel, onClose }: ConnectionModalProps) {
  const { t } = useTranslation();
  const detail = useConnection(connection?.id ?? null);
  const current = detail.data ?? connection;
  const queues = useQueues(true);
  const save = useSaveConnection();
  const regenerate = useRegenerateToken();
  const [tab, setTab] = useState('general');

  const form = useForm<ConnectionFormValues>({
    resolver: zodResolver(connectionFormSchema),
    values: current ? formValuesOf(current) : emptyConnectionForm,
    resetOptions: { keepDirtyValues: true },
  });
  const allowGroup = useWatch({ control: form.control, name: 'allowGroup' });

  const onSubmit = (values: ConnectionFormValues) => {
    save.mutate(
      { id: connection?.id ?? null, body: connectionBody(values, current, channel) },
      {
        onSuccess: () => {
          toast.success(t('connections.saved'));
          onClose();
        },
        onError: (error) => {
          applyServerFieldErrors(error, form.setError, CONNECTION_FORM_FIELDS);
          toastError(error);
        },
      },
    );
  };

  const copyToken = async () => {
    if (!current?.token) return;
    try {
      await navigator.clipboard.writeText(current.token);
      toast.success(t('connections.tokenCopied'));
    } catch (error) {
      toastError(error);
    }
  };

  const queueOptions = (queues.data ?? []).map((queue) => ({ value: queue.id, label: queue.name }));
  const message = (name: keyof ConnectionFormValues, label: string) => (
    <FormTextField name={name} label={label} multiline minRows={3} fullWidth testId={`connection-modal-${name}`} />
  );

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" scroll="paper" data-testid="connection-modal">
      <DialogTitle>{connection ? t('connections.modal.editTitle') : t('connections.modal.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="connection-form" inDialog>
        <Tabs value={tab} onChange={(_, value: string) => setTab(value)} sx={{ px: 3 }}>
          <Tab value="general" label={t('connections.modal.tabs.general')} data-testid="connection-modal-tab-general" />
        </Tabs>
        <DialogContent dividers>
          <Stack spacing={2}>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
              <FormTextField name="name" label={t('connections.modal.name')} required fullWidth autoFocus testId="connection-modal-name" />
              <FormSwitchField name="isDefault" label={t('connections.modal.isDefault')} testId="connection-modal-isDefault" />
            </Stack>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
              <FormSwitchField name="allowGroup" label={t('connections.modal.allowGroup')} testId="connection-modal-allowGroup" />
              {allowGroup && <FormSwitchField name="groupAsTicket" label={t('connections.modal.groupAsTicket')} testId="connection-modal-groupAsTicket" />}
            </Stack>
            <FormSelectField
              name="queueIds"
              label={t('connections.modal.queues')}
              multiple
              fullWidth
              options={queueOptions}
              disabled={queueOptions.length === 0}
              helperText={queues.isSuccess && queueOptions.length === 0 ? t('connections.modal.noQueues') : undefined}
              testId="connection-modal-queues"
            />
            {message('greetingMessage', t('connections.modal.greetingMessage'))}
            {message('complationMessage', t('connections.modal.complationMessage'))}
            {message('outOfHoursMessage', t('connections.modal.outOfHoursMessage'))}
            {message('ratingMessage', t('connections.modal.ratingMessage'))}
            {current ? (
              <TextField
                label={t('connections.modal.token')}
                value={current.token}
                fullWidth
                slotProps={{
                  htmlInput: { readOnly: true, 'data-testid': 'connection-modal-token' },
                  input: {
                    endAdornment: (
                      <InputAdornment position="end">
                        <Tooltip title={t('connections.modal.copyToken')}>
                          <IconButton onClick={() => void copyToken()} aria-label={t('connections.modal.copyToken')} data-testid="connection-modal-token-copy">
                            <ContentCopyIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                        <Tooltip title={t('connections.modal.regenerateToken')}>
                          <span>
                            <IconButton
                              onClick={() =>
                                regenerate.mutate(current.id, {
                                  onSuccess: () => toast.success(t('connections.tokenRegenerated')),
                                  onError: (error) => toastError(error),
                                })
                              }
                              disabled={regenerate.isPending}
                              aria-label={t('connections.modal.regenerateToken')}
                              data-testid="connection-modal-token-regenerate"
                            >
                              <AutorenewIcon fontSize="small" />
                            </IconButton>
                          </span>
                        </Tooltip>
                      </InputAdornment>
                    ),
                  },
                }}
              />
            ) : (
              <Typography variant="caption" color="text.secondary">
                {t('connections.modal.tokenAfterSave')}
              </Typography>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="connection-modal-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="connection-modal-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
