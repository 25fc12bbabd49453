import { useMemo, useState, type ChangeEvent } from 'react';
import { Controller, useForm, useFormContext, useWatch, type FieldErrors, type Path } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Divider, InputAdornment, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormSelectField, FormSwitchField, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { translateFieldCode } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { emptyQueueForm, formFieldPaths, normaliseFieldPath, queueBody, queueFormOf, queueFormSchema, type QueueFormValues } from '../api/queue-form';
import { useQueue, useQueueList, useSaveQueue, useUserOptions } from '../api/queues';
import { useScheduleType } from '../../../lib/business-hours/api';
import { ROTATION_MINUTES, type Queue } from '../types';
import { ChatbotOptionsEditor } from './ChatbotOptionsEditor';
import { ScheduleEditor } from '../../../components/ScheduleEditor';

interface QueueDialogProps {
  /** The queue to edit; null to create one. */
  queue: Queue | null;
  onClose: () => void;
}

type TabName = 'data' | 'hours';

/** Fields shown on the hours tab; every other field is on the data tab. */
const HOURS_FIELDS = new Set(['outOfHoursMessage', 'schedules']);

const HEX6 = /^#[0-9a-fA-F]{6}$/;

/** The colour as text (3-9 characters, as the spec allows) with a picker and a swatch beside it. */
function ColorField({ disabled }: { disabled?: boolean }) {
  const { t } = useTranslation();
  const { control } = useFormContext<QueueFormValues>();
  return (
    <Controller
      name="color"
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          label={t('queues.fields.color')}
          required
          fullWidth
          name={field.name}
          inputRef={field.ref}
          value={field.value}
          onChange={(event) => field.onChange(event.target.value)}
          onBlur={field.onBlur}
          disabled={disabled}
          error={!!fieldState.error}
          helperText={translateFieldCode(fieldState.error?.message, t)}
          slotProps={{
            htmlInput: { 'data-testid': 'queue-dialog-color', maxLength: 9 },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <input
                    type="color"
                    aria-label={t('queues.fields.colorPicker')}
                    value={HEX6.test(field.value) ? field.value : '#000000'}
                    onChange={(event: ChangeEvent<HTMLInputElement>) => field.onChange(event.target.value)}
                    disabled={disabled}
                    data-testid="queue-dialog-color-picker"
                    style={{ width: 32, height: 32, padding: 0, border: 0, background: 'transparent', cursor: 'pointer' }}
                  />
                </InputAdornment>
              ),
            },
          }}
        />
      )}
    />
  );
}

/** The tab holding the first error, when the visible tab holds none. */
function tabOfErrors(errors: FieldErrors<QueueFormValues>, current: TabName): TabName | null {
  const keys = Object.keys(errors);
  if (keys.length === 0) return null;
  const onHours = keys.some((key) => HOURS_FIELDS.has(key));
  const onData = keys.some((key) => !HOURS_FIELDS.has(key));
  if (current === 'data' && !onData && onHours) return 'hours';
  if (current === 'hours' && !onHours && onData) return 'data';
  return null;
}

/**
 * Create or edit a queue (spec 2 "Queues"): tab "Dados da fila" (name, colour, order, greeting,
 * close ticket, rotation and its minutes, the chatbot menu) and, when working hours are kept per
 * queue, tab "Horários" (out-of-hours message and the week's shifts).
 */
export function QueueDialog({ queue, onClose }: QueueDialogProps) {
  const { t } = useTranslation();
  const detail = useQueue(queue?.id ?? null);
  const current = detail.data ?? queue;
  const scheduleType = useScheduleType();
  const showHours = scheduleType === 'queue';
  const list = useQueueList();
  const users = useUserOptions(true);
  const save = useSaveQueue();
  const [tab, setTab] = useState<TabName>('data');

  const others = useMemo(() => (list.data ?? []).filter((q) => q.id !== queue?.id), [list.data, queue?.id]);
  const schema = useMemo(() => queueFormSchema(scheduleType, others.length > 0), [scheduleType, others.length]);
  const defaults = useMemo(
    () => (current ? queueFormOf(current) : emptyQueueForm(others.map((q) => q.color))),
    [current, others],
  );
  const form = useForm<QueueFormValues>({
    resolver: zodResolver(schema),
    values: defaults,
    resetOptions: { keepDirtyValues: true },
  });
  const ativarRoteador = useWatch({ control: form.control, name: 'ativarRoteador' });

  // A failed submit whose errors all sit on the other tab shows that tab (once per attempt, so
  // switching tabs by hand stays possible): state adjusted while rendering, as React advises.
  const { submitCount, errors } = form.formState;
  const [seenSubmits, setSeenSubmits] = useState(0);
  if (submitCount !== seenSubmits) {
    setSeenSubmits(submitCount);
    const other = tabOfErrors(errors, tab);
    if (other && (other === 'data' || showHours)) setTab(other);
  }

  const queueOptions = others.map((q) => ({ value: q.id, label: q.name }));
  const userOptions = (users.data ?? []).map((u) => ({ value: u.id, label: u.name }));
  const rotationOptions = ROTATION_MINUTES.map((minutes) => ({ value: minutes, label: t('queues.fields.minutes', { count: minutes }) }));

  const onSubmit = (values: QueueFormValues) => {
    save.mutate(
      { id: queue?.id ?? null, body: queueBody(values, { scheduleType, current }) },
      {
        onSuccess: () => {
          toast.success(t('queues.saved'));
          onClose();
        },
        onError: (error) => {
          if (isApiError(error) && error.fields.length > 0) {
            const known = formFieldPaths(values);
            let first = true;
            const applied: string[] = [];
            for (const { field, code } of error.fields) {
              const path = normaliseFieldPath(field);
              if (!known.includes(path)) continue;
              form.setError(path as Path<QueueFormValues>, { type: 'server', message: code }, { shouldFocus: first });
              first = false;
              applied.push(path.split('.')[0]);
            }
            if (applied.length > 0) setTab(applied.every((key) => HOURS_FIELDS.has(key)) && showHours ? 'hours' : 'data');
          } else if (isApiError(error) && error.code === 'ERR_QUEUE_COLOR_ALREADY_EXISTS') {
            form.setError('color', { type: 'server', message: 'errors.ERR_QUEUE_COLOR_ALREADY_EXISTS' }, { shouldFocus: true });
            setTab('data');
          }
          toastError(error);
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" scroll="paper" data-testid="queue-dialog">
      <DialogTitle>{queue ? t('queues.editTitle') : t('queues.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="queue-form" inDialog>
        <Tabs value={showHours ? tab : 'data'} onChange={(_, value: TabName) => setTab(value)} sx={{ px: 3 }}>
          <Tab value="data" label={t('queues.tabs.data')} data-testid="queue-dialog-tab-data" />
          {showHours && <Tab value="hours" label={t('queues.tabs.hours')} data-testid="queue-dialog-tab-hours" />}
        </Tabs>
        <DialogContent dividers>
          <Box hidden={showHours && tab !== 'data'}>
            <Stack spacing={2}>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <FormTextField name="name" label={t('queues.fields.name')} required fullWidth autoFocus testId="queue-dialog-name" />
                <ColorField />
                <FormTextField
                  name="orderQueue"
                  label={t('queues.fields.orderQueue')}
                  fullWidth
                  slotProps={{ htmlInput: { inputMode: 'numeric' } }}
                  testId="queue-dialog-orderQueue"
                />
              </Stack>
              <FormTextField name="greetingMessage" label={t('queues.fields.greetingMessage')} multiline minRows={3} fullWidth testId="queue-dialog-greetingMessage" />
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
                <FormSwitchField name="closeTicket" label={t('queues.fields.closeTicket')} testId="queue-dialog-closeTicket" />
                <FormSwitchField name="ativarRoteador" label={t('queues.fields.ativarRoteador')} testId="queue-dialog-ativarRoteador" />
                <FormSelectField
                  name="tempoRoteador"
                  label={t('queues.fields.tempoRoteador')}
                  options={rotationOptions}
                  disabled={!ativarRoteador}
                  size="small"
                  sx={{ minWidth: 180 }}
                  testId="queue-dialog-tempoRoteador"
                />
              </Stack>
              <Divider />
              <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
                {t('queues.chatbot.title')}
              </Typography>
              <ChatbotOptionsEditor name="chatbots" queueOptions={queueOptions} userOptions={userOptions} />
            </Stack>
          </Box>
          {showHours && (
            <Box hidden={tab !== 'hours'}>
              <Stack spacing={2}>
                <FormTextField
                  name="outOfHoursMessage"
                  label={t('queues.fields.outOfHoursMessage')}
                  required
                  multiline
                  minRows={2}
                  fullWidth
                  testId="queue-dialog-outOfHoursMessage"
                />
                <Controller
                  name="schedules"
                  control={form.control}
                  render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} testId="queue-dialog-schedule" />}
                />
              </Stack>
            </Box>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="queue-dialog-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="queue-dialog-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
