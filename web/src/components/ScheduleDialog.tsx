import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Autocomplete, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormSelectField, FormSwitchField, FormTextField } from './ui';
import { applyServerFieldErrors } from '../lib/forms';
import { toast, toastError } from '../lib/toast';
import { useDebouncedValue } from '../lib/hooks/useDebouncedValue';
import { useContactSearch, useUserOptions, type ContactOption } from '../lib/lookups/options';
import { useCompanyQueues } from '../lib/lookups/queues';
import { mediaAccept, mediaAllowed, scheduleBody, scheduleFormDefaults, scheduleFormFields, scheduleFormSchema, useSaveSchedule, type ScheduleFormValues } from '../lib/schedules/form';
import type { Schedule } from '../lib/schedules/schedule';
import { useRules } from '../lib/wasm/useRules';
import type { ScheduleLimits } from '../lib/wasm/rules';

interface ScheduleDialogProps {
  /** The contact the message goes to; null to pick one in the dialog. */
  contactId: number | null;
  /** The connection (the ticket's); null for the company's default. */
  whatsappId?: number | null;
  /** The schedule to edit; null to create one. */
  schedule?: Schedule | null;
  onClose: () => void;
}

/**
 * Schedule a message (spec 1 §3, §5): body (at least 5 characters), send time (default one hour
 * from now), recurrence (unit, every N, times, non-working-day rule), open-ticket switch with
 * user, queue and status, sign switch and a png/jpg attachment.
 */
export function ScheduleDialog(props: ScheduleDialogProps) {
  const rules = useRules();
  // It opens once the core's rules (the schedule's bounds) are in.
  if (!rules) return null;
  return <ScheduleForm {...props} limits={rules.scheduleLimits()} />;
}

function ScheduleForm({ contactId, whatsappId = null, schedule = null, onClose, limits }: ScheduleDialogProps & { limits: ScheduleLimits }) {
  const { t } = useTranslation();
  const [schema] = useState(() => scheduleFormSchema(limits));
  const save = useSaveSchedule();
  const users = useUserOptions();
  const queues = useCompanyQueues(true);
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState(false);
  const [contactInput, setContactInput] = useState('');
  const contactSearch = useContactSearch(useDebouncedValue(contactInput, 500));
  const [contact, setContact] = useState<ContactOption | null>(null);
  const [contactMissing, setContactMissing] = useState(false);
  const target = schedule?.contactId ?? contactId ?? contact?.id ?? null;
  const form = useForm<ScheduleFormValues>({
    resolver: zodResolver(schema) as never,
    defaultValues: scheduleFormDefaults(schedule),
  });
  const openTicket = useWatch({ control: form.control, name: 'openTicket' });

  const onSubmit = (values: ScheduleFormValues) => {
    if (target === null) {
      setContactMissing(true);
      return;
    }
    save.mutate(
      { id: schedule?.id ?? null, body: scheduleBody(values, target, schedule?.whatsappId ?? whatsappId), file },
      {
        onSuccess: () => {
          toast.success(t('schedules.saved'));
          onClose();
        },
        onError: (error) => {
          applyServerFieldErrors(error, form.setError, scheduleFormFields(schema));
          toastError(error);
        },
      },
    );
  };

  const options = (keys: readonly (readonly [number, string])[]) => keys.map(([value, key]) => ({ value, label: t(key as never) }));

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid="schedule-dialog">
      <DialogTitle>{schedule ? t('schedules.editTitle') : t('schedules.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="schedule-form" inDialog>
        <DialogContent dividers>
          <Stack spacing={2}>
            {schedule === null && contactId === null && (
              <Autocomplete
                options={contactInput.trim().length >= 3 ? (contactSearch.data ?? []) : []}
                value={contact}
                onChange={(_e, value) => {
                  setContact(value);
                  setContactMissing(false);
                }}
                inputValue={contactInput}
                onInputChange={(_e, value) => setContactInput(value)}
                getOptionLabel={(option) => (option.number ? `${option.name} - ${option.number}` : option.name)}
                isOptionEqualToValue={(a, b) => a.id === b.id}
                filterOptions={(options) => options}
                noOptionsText={t('schedules.typeContact')}
                renderInput={(params) => (
                  <TextField
                    {...params}
                    label={t('schedules.contact')}
                    required
                    error={contactMissing}
                    helperText={contactMissing ? t('validation.REQUIRED') : undefined}
                    slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'schedule-contact' } }}
                  />
                )}
              />
            )}
            <FormTextField name="body" label={t('schedules.body')} required fullWidth multiline minRows={3} testId="schedule-body" />
            <FormTextField name="sendAt" label={t('schedules.sendAt')} type="datetime-local" required fullWidth testId="schedule-send-at" slotProps={{ inputLabel: { shrink: true } }} />
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
              <FormSelectField
                name="intervalo"
                label={t('schedules.interval')}
                fullWidth
                testId="schedule-interval"
                options={options([
                  [1, 'schedules.units.days'],
                  [2, 'schedules.units.weeks'],
                  [3, 'schedules.units.months'],
                  [4, 'schedules.units.minutes'],
                ])}
              />
              <FormTextField name="valorIntervalo" label={t('schedules.every')} type="number" fullWidth testId="schedule-every" />
              <FormTextField name="enviarQuantasVezes" label={t('schedules.times')} type="number" fullWidth testId="schedule-times" />
            </Stack>
            <FormSelectField
              name="tipoDias"
              label={t('schedules.dayRule')}
              fullWidth
              testId="schedule-day-rule"
              options={options([
                [4, 'schedules.dayRules.any'],
                [5, 'schedules.dayRules.before'],
                [6, 'schedules.dayRules.after'],
              ])}
            />
            <FormSwitchField name="openTicket" label={t('schedules.openTicket')} testId="schedule-open-ticket" />
            {openTicket ? (
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <FormSelectField
                  name="ticketUserId"
                  label={t('schedules.user')}
                  fullWidth
                  testId="schedule-user"
                  options={[{ value: '', label: t('schedules.none') }, ...(users.data ?? []).map((u) => ({ value: u.id, label: u.name }))]}
                />
                <FormSelectField
                  name="queueId"
                  label={t('schedules.queue')}
                  fullWidth
                  testId="schedule-queue"
                  options={[{ value: '', label: t('schedules.none') }, ...queues.map((q) => ({ value: q.id, label: q.name }))]}
                />
              </Stack>
            ) : (
              <FormSelectField
                name="statusTicket"
                label={t('schedules.statusTicket')}
                fullWidth
                testId="schedule-status-ticket"
                options={[
                  { value: 'closed', label: t('schedules.ticketStatuses.closed') },
                  { value: 'open', label: t('schedules.ticketStatuses.open') },
                ]}
              />
            )}
            <FormSwitchField name="assinar" label={t('schedules.sign')} testId="schedule-sign" />
            <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
              <Button component="label" variant="outlined" data-testid="schedule-attach">
                {t('schedules.attach')}
                <input
                  hidden
                  type="file"
                  accept={mediaAccept(limits)}
                  data-testid="schedule-file"
                  onChange={(event) => {
                    const picked = event.target.files?.[0] ?? null;
                    const ok = picked === null || mediaAllowed(limits, picked.name);
                    setFileError(!ok);
                    setFile(ok ? picked : null);
                  }}
                />
              </Button>
              <Typography variant="body2" color={fileError ? 'error' : 'text.secondary'} data-testid="schedule-file-name">
                {fileError ? t('schedules.fileType') : (file?.name ?? schedule?.mediaName ?? '')}
              </Typography>
            </Stack>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="schedule-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="schedule-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
