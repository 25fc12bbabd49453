import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormSwitchField, FormTextField } from '../../../../components/ui';
import { applyServerFieldErrors } from '../../../../lib/forms';
import { toast, toastError } from '../../../../lib/toast';
import { TAG_FORM_FIELDS, tagBody, tagFormSchema, useSaveTag, type TagFormValues } from '../api/tags';
import type { Tag } from '../types';

interface TagModalProps {
  /** The tag to edit; null to create one. */
  tag: Tag | null;
  onClose: () => void;
}

export const DEFAULT_TAG_COLOR = '#5c59a0';

/** Create or edit a tag: name (at least 3), colour, kanban lane flag. */
export function TagModal({ tag, onClose }: TagModalProps) {
  const { t } = useTranslation();
  const save = useSaveTag();
  const form = useForm<TagFormValues>({
    resolver: zodResolver(tagFormSchema),
    defaultValues: tag ? { name: tag.name, color: /^#[0-9a-fA-F]{6}$/.test(tag.color) ? tag.color : DEFAULT_TAG_COLOR, kanban: tag.kanban === 1 } : { name: '', color: DEFAULT_TAG_COLOR, kanban: false },
  });

  const onSubmit = (values: TagFormValues) => {
    save.mutate(
      { id: tag?.id ?? null, body: tagBody(values) },
      {
        onSuccess: () => {
          toast.success(t('tags.saved'));
          onClose();
        },
        onError: (error) => {
          applyServerFieldErrors(error, form.setError, TAG_FORM_FIELDS);
          toastError(error);
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs" data-testid="tag-modal">
      <DialogTitle>{tag ? t('tags.editTitle') : t('tags.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="tag-form" inDialog>
        <DialogContent dividers>
          <Stack spacing={2}>
            <FormTextField name="name" label={t('tags.name')} required fullWidth autoFocus testId="tag-modal-name" />
            <FormTextField name="color" label={t('tags.color')} type="color" fullWidth testId="tag-modal-color" />
            <FormSwitchField name="kanban" label={t('tags.kanban')} testId="tag-modal-kanban" />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="tag-modal-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="tag-modal-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
