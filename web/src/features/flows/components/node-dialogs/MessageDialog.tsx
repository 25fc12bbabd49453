/** The message node: one text. */
import { useTranslation } from 'react-i18next';
import { FormTextField } from '../../../../components/ui';
import { messageFormSchema } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';

export function MessageDialog({ data, onSubmit, onClose }: NodeDialogProps<'message'>) {
  const { t } = useTranslation();
  return (
    <FormDialog schema={messageFormSchema} defaults={{ label: data?.label ?? '' }} onValues={(v) => onSubmit({ ...data, label: v.label })} type="message" editing={!!data} onClose={onClose}>
      {() => <FormTextField name="label" label={t('flows.dialog.message')} multiline minRows={4} fullWidth autoFocus testId="node-message-text" />}
    </FormDialog>
  );
}
