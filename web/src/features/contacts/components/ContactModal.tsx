import { useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Autocomplete,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Form, FormTextField } from '../../../components/ui';
import { api } from '../../../lib/api';
import { applyServerFieldErrors } from '../../../lib/forms';
import { toast, toastError } from '../../../lib/toast';
import { syncContactTags, tagsKeys, useTagOptions } from '../tags/api/tags';
import { tagSchema, type Tag } from '../tags/types';
import { CONTACT_FORM_FIELDS, contactBody, contactFormSchema, contactsKeys, emptyContactForm, useContact, useSaveContact, type ContactFormValues } from '../api/contacts';
import type { Contact } from '../types';
import { ContactAliases } from './ContactAliases';

interface ContactModalProps {
  /** The contact to edit; null to create one. */
  contact: Contact | null;
  onClose: () => void;
}

function formValuesOf(contact: Contact): ContactFormValues {
  return {
    name: contact.name,
    number: contact.number,
    email: contact.email,
    extraInfo: contact.extraInfo.map((info) => ({ id: info.id ?? null, name: info.name, value: info.value })),
  };
}

/** Create or edit a contact: name, number, e-mail, extra info rows and tags (spec 1 §5). */
export function ContactModal({ contact, onClose }: ContactModalProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const detail = useContact(contact?.id ?? null);
  const current = detail.data ?? contact;
  const tagOptions = useTagOptions();
  const save = useSaveContact();
  const [tags, setTags] = useState<Tag[] | null>(null);
  const [creatingTag, setCreatingTag] = useState(false);
  const selectedTags = tags ?? current?.tags ?? [];

  const form = useForm<ContactFormValues>({
    resolver: zodResolver(contactFormSchema),
    values: current ? formValuesOf(current) : emptyContactForm,
    resetOptions: { keepDirtyValues: true },
  });
  const extra = useFieldArray({ control: form.control, name: 'extraInfo' });

  /** A tag typed in the field: at least 3 characters, created with `POST /tags`. */
  const createTag = async (name: string) => {
    const trimmed = name.trim();
    if (trimmed.length < 3) {
      toast.error(t('tags.tooShort'));
      return;
    }
    const existing = (tagOptions.data ?? []).find((tag) => tag.name.toLowerCase() === trimmed.toLowerCase());
    if (existing) {
      setTags([...selectedTags.filter((tag) => tag.id !== existing.id), existing]);
      return;
    }
    setCreatingTag(true);
    try {
      const created = await api.post('/tags', { name: trimmed, color: '#5c59a0', kanban: 0 }, { schema: tagSchema });
      setTags([...selectedTags, created]);
      void queryClient.invalidateQueries({ queryKey: tagsKeys.all });
    } catch (error) {
      toastError(error);
    } finally {
      setCreatingTag(false);
    }
  };

  const onSubmit = (values: ContactFormValues) => {
    save.mutate(
      { id: contact?.id ?? null, body: contactBody(values, current) },
      {
        onSuccess: async (saved) => {
          if (tags !== null) {
            try {
              await syncContactTags(saved.id, tags);
              void queryClient.invalidateQueries({ queryKey: contactsKeys.all });
            } catch (error) {
              toastError(error);
            }
          }
          toast.success(t('contacts.saved'));
          onClose();
        },
        onError: (error) => {
          applyServerFieldErrors(error, form.setError, CONTACT_FORM_FIELDS);
          toastError(error);
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" scroll="paper" data-testid="contact-modal">
      <DialogTitle>{contact ? t('contacts.modal.editTitle') : t('contacts.modal.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="contact-form" inDialog>
        <DialogContent dividers>
          <Stack spacing={2}>
            <Typography variant="subtitle2">{t('contacts.modal.data')}</Typography>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
              <FormTextField name="name" label={t('contacts.modal.name')} required fullWidth autoFocus testId="contact-modal-name" />
              <FormTextField name="number" label={t('contacts.modal.number')} required fullWidth placeholder="5513912344321" testId="contact-modal-number" />
            </Stack>
            <FormTextField name="email" label={t('contacts.modal.email')} type="email" fullWidth testId="contact-modal-email" />
            {detail.data && <ContactAliases aliases={detail.data.aliases} />}
            <Autocomplete<Tag | string, true, false, true>
              multiple
              freeSolo
              options={tagOptions.data ?? []}
              value={selectedTags}
              loading={tagOptions.isPending || creatingTag}
              getOptionLabel={(option) => (typeof option === 'string' ? option : option.name)}
              isOptionEqualToValue={(option, value) => typeof option !== 'string' && typeof value !== 'string' && option.id === value.id}
              onChange={(_, value) => {
                const typed = value.find((v): v is string => typeof v === 'string');
                const kept = value.filter((v): v is Tag => typeof v !== 'string');
                setTags(kept);
                if (typed !== undefined) void createTag(typed);
              }}
              renderValue={(value, getItemProps) =>
                value.map((option, index) => {
                  const { key, ...itemProps } = getItemProps({ index });
                  return typeof option === 'string' ? null : (
                    <Chip key={key} {...itemProps} size="small" label={option.name} sx={{ bgcolor: option.color, color: 'common.white' }} />
                  );
                })
              }
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('contacts.modal.tags')}
                  placeholder={t('contacts.modal.tagsPlaceholder')}
                  slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'contact-modal-tags' } }}
                />
              )}
              data-testid="contact-modal-tags-field"
            />
            <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
              <Typography variant="subtitle2">{t('contacts.modal.extraInfo')}</Typography>
              <Button size="small" startIcon={<AddIcon />} onClick={() => extra.append({ id: null, name: '', value: '' })} data-testid="contact-modal-extra-add">
                {t('contacts.modal.addExtraInfo')}
              </Button>
            </Stack>
            {extra.fields.map((field, index) => (
              <Stack key={field.id} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }} data-testid={`contact-modal-extra-${index}`}>
                <FormTextField name={`extraInfo.${index}.name`} label={t('contacts.modal.extraName')} fullWidth size="small" testId={`contact-modal-extra-${index}-name`} />
                <FormTextField name={`extraInfo.${index}.value`} label={t('contacts.modal.extraValue')} fullWidth size="small" testId={`contact-modal-extra-${index}-value`} />
                <Tooltip title={t('common.delete')}>
                  <IconButton onClick={() => extra.remove(index)} aria-label={t('common.delete')} data-testid={`contact-modal-extra-${index}-remove`}>
                    <DeleteOutlineIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </Stack>
            ))}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="contact-modal-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="contact-modal-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
