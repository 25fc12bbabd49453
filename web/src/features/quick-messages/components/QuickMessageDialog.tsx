import { useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { useTranslation } from 'react-i18next';
import { Form, FormSwitchField, FormTextField } from '../../../components/ui';
import { applyServerFieldErrors } from '../../../lib/forms';
import { useAuthenticatedSession } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { QUICK_MESSAGE_FORM_FIELDS, quickMessageFormSchema, useSaveQuickMessage, type QuickMessageFormValues } from '../api/quick-messages';
import { canEditQuickMessage, type QuickMessage } from '../types';

interface Props {
  /** The quick message to edit; null to create one. */
  quickMessage: QuickMessage | null;
  onClose: () => void;
}

/**
 * Create or edit a quick message: shortcode, message, shared switch, a file. A private message of
 * someone else is shown read-only; only the owner changes the shared switch.
 */
export function QuickMessageDialog({ quickMessage, onClose }: Props) {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const save = useSaveQuickMessage();
  const fileInput = useRef<HTMLInputElement | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [removeFile, setRemoveFile] = useState(false);
  const readOnly = quickMessage !== null && !canEditQuickMessage(quickMessage, user.id);
  const isOwner = quickMessage === null || quickMessage.userId === user.id;
  const form = useForm<QuickMessageFormValues>({
    resolver: zodResolver(quickMessageFormSchema),
    defaultValues: { shortcode: quickMessage?.shortcode ?? '', message: quickMessage?.message ?? '', geral: quickMessage?.geral ?? false },
  });
  const fileName = file?.name ?? (!removeFile && quickMessage?.isMedia ? quickMessage.mediaName ?? '' : null);

  const onSubmit = (values: QuickMessageFormValues) => {
    if (!values.message.trim() && fileName === null) {
      form.setError('message', { message: 'REQUIRED' });
      return;
    }
    save.mutate(
      { id: quickMessage?.id ?? null, values, file, removeFile },
      {
        onSuccess: () => {
          toast.success(t('quickMessages.saved'));
          onClose();
        },
        onError: (error) => {
          applyServerFieldErrors(error, form.setError, QUICK_MESSAGE_FORM_FIELDS);
          toastError(error);
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid="quick-message-dialog">
      <DialogTitle>{quickMessage ? t('quickMessages.editTitle') : t('quickMessages.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="quick-message-form" inDialog>
        <DialogContent dividers>
          <Stack spacing={2}>
            {readOnly && (
              <Alert severity="info" data-testid="quick-message-read-only">
                {t('quickMessages.readOnly')}
              </Alert>
            )}
            <FormTextField name="shortcode" label={t('quickMessages.shortcode')} required fullWidth autoFocus disabled={readOnly} testId="quick-message-shortcode" />
            <FormTextField name="message" label={t('quickMessages.message')} fullWidth multiline minRows={4} disabled={readOnly} testId="quick-message-message" />
            <FormSwitchField name="geral" label={t('quickMessages.geral')} disabled={readOnly || !isOwner} testId="quick-message-geral" />
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <input
                ref={fileInput}
                type="file"
                hidden
                data-testid="quick-message-file"
                onChange={(event) => {
                  const picked = event.target.files?.[0] ?? null;
                  if (picked) setFile(picked);
                  event.target.value = '';
                }}
              />
              <Button startIcon={<AttachFileIcon />} disabled={readOnly} onClick={() => fileInput.current?.click()} data-testid="quick-message-attach">
                {t('quickMessages.attach')}
              </Button>
              {fileName !== null && (
                <Chip
                  label={fileName}
                  onDelete={readOnly ? undefined : () => {
                    setFile(null);
                    setRemoveFile(true);
                  }}
                  data-testid="quick-message-file-name"
                />
              )}
            </Stack>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="quick-message-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={readOnly || save.isPending} data-testid="quick-message-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
