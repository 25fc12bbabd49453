/** The menu node: a text and numbered options (renumbered handles on change). */
import { useFieldArray, useForm } from 'react-hook-form';
import { Alert, Button, IconButton, Stack, Tooltip } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod/mini';
import { FormTextField } from '../../../../components/ui';
import { menuFormSchema, renumberMenu } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';

export function MenuDialog({ data, onSubmit, onClose }: NodeDialogProps<'menu'>) {
  const options = data ? data.arrayOption.map((o, i) => ({ number: o.number ?? i + 1, value: o.value })) : [{ number: 1, value: '' }];
  return (
    <FormDialog
      schema={menuFormSchema}
      defaults={{ message: data?.message ?? '', arrayOption: options }}
      onValues={(v) => {
        const renumbered = renumberMenu(options, v.arrayOption);
        onSubmit({ ...data, message: v.message, arrayOption: renumbered.arrayOption }, renumbered.handles);
      }}
      type="menu"
      editing={!!data}
      onClose={onClose}
    >
      {(form) => <MenuFields form={form} />}
    </FormDialog>
  );
}

function MenuFields({ form }: { form: ReturnType<typeof useForm<z.input<typeof menuFormSchema>, unknown, z.output<typeof menuFormSchema>>> }) {
  const { t } = useTranslation();
  const { fields, append, remove } = useFieldArray({ control: form.control, name: 'arrayOption' });
  const optionsError = form.formState.errors.arrayOption?.root?.message ?? form.formState.errors.arrayOption?.message;
  return (
    <>
      <FormTextField name="message" label={t('flows.dialog.message')} multiline minRows={3} fullWidth autoFocus testId="node-menu-message" />
      {fields.map((field, index) => (
        <Stack key={field.id} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
          <FormTextField name={`arrayOption.${index}.value`} label={t('flows.dialog.option', { number: index + 1 })} fullWidth testId={`node-menu-option-${index + 1}`} />
          <Tooltip title={t('flows.dialog.removeOption')}>
            <IconButton onClick={() => remove(index)} aria-label={t('flows.dialog.removeOption')} data-testid={`node-menu-remove-${index + 1}`}>
              <DeleteOutlineIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Stack>
      ))}
      {optionsError && <Alert severity="error">{t(optionsError as 'flows.validation.menuOptions')}</Alert>}
      <Button startIcon={<AddIcon />} onClick={() => append({ number: 0, value: '' })} data-testid="node-menu-add-option" sx={{ alignSelf: 'flex-start' }}>
        {t('flows.dialog.addOption')}
      </Button>
    </>
  );
}
