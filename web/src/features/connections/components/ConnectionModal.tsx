import { useMemo, useState } from 'react';
import { Controller, useForm, useWatch, type FieldErrors, type Path } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Button,
  Box,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
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
import { ConfirmDialog, Form, FormCheckboxField, FormSelectField, FormSwitchField, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { toast, toastError } from '../../../lib/toast';
import { useScheduleType } from '../../../lib/business-hours/api';
import { ScheduleEditor } from '../../../components/ScheduleEditor';
import { SHIFT_FIELDS, WEEKDAYS } from '../../../lib/business-hours/week';
import { useQueues } from '../../../lib/lookups/queues';
import {
  CONNECTION_FORM_FIELDS,
  connectionBody,
  connectionFormOf,
  connectionFormSchema,
  emptyConnectionForm,
  initialProvider,
  isKnownProvider,
  tabOfField,
  useConnection,
  useConnectionProviders,
  useFlowChoices,
  useRegenerateToken,
  useSaveConnection,
  type ConnectionBody,
  type ConnectionFormValues,
  type ConnectionTab,
} from '../api/connections';
import type { Connection } from '../types';
import { savingUnlinks } from '../utils/import-messages';

interface ConnectionModalProps {
  /** The connection to edit; null to create one. */
  connection: Connection | null;
  /** The channel of a new connection. */
  channel: string;
  onClose: () => void;
}

/** Every path a server field error may name (`schedules.3.endTimeA` included). */
const KNOWN_PATHS: string[] = [
  ...CONNECTION_FORM_FIELDS,
  ...WEEKDAYS.flatMap((_, index) => SHIFT_FIELDS.map((field) => `schedules.${index}.${field}`)),
];

/** `schedules[0].endTimeA` → `schedules.0.endTimeA`. */
function normaliseFieldPath(field: string): string {
  return field.replace(/\[(\d+)\]/g, '.$1');
}

/** The first tab holding an error, when the visible tab holds none. */
function tabOfErrors(errors: FieldErrors<ConnectionFormValues>, current: ConnectionTab, visible: ConnectionTab[]): ConnectionTab | null {
  const tabs = Object.keys(errors).map(tabOfField);
  if (tabs.length === 0 || tabs.includes(current)) return null;
  return visible.find((tab) => tabs.includes(tab)) ?? null;
}

/**
 * Create or edit a connection (spec 2 "Connection dialog"): tabs general (name, default, groups,
 * queues, token; a new WhatsApp connection's type when the server runs more than one provider, a
 * stored one's read-only), messages (greeting, completion, out of hours, rating, collective vacation),
 * chatbot (bot limits, redirect queue, expiry, welcome and no-phrase flows), for WhatsApp the
 * import of old messages (dates, groups, closing when done, queue) and, when working hours are kept
 * per connection, schedules. Changing the import of a CONNECTED connection unlinks the phone (the
 * history is sent only right after linking): saving asks first.
 */
export function ConnectionModal({ connection, channel, onClose }: ConnectionModalProps) {
  const { t } = useTranslation();
  const detail = useConnection(connection?.id ?? null);
  const current = detail.data ?? connection;
  const isWhatsapp = (current?.channel ?? channel) === 'whatsapp';
  // The type of a new WhatsApp connection is chosen here; a stored connection keeps its own.
  const askProviders = !connection && isWhatsapp;
  const providers = useConnectionProviders(askProviders);
  const providerChoices = askProviders ? (providers.data?.providers ?? []) : [];
  const chooseProvider = providerChoices.length > 1;
  const queues = useQueues(true);
  const flows = useFlowChoices(true);
  const scheduleType = useScheduleType();
  const showSchedules = scheduleType === 'connection';
  const save = useSaveConnection();
  const regenerate = useRegenerateToken();
  const [tab, setTab] = useState<ConnectionTab>('general');
  const visibleTabs: ConnectionTab[] = ['general', 'messages', 'chatbot', ...(isWhatsapp ? (['import'] as const) : []), ...(showSchedules ? (['schedules'] as const) : [])];
  /** A body that unlinks the phone, waiting for the user's confirmation. */
  const [toConfirm, setToConfirm] = useState<ConnectionBody | null>(null);
  const shownTab = visibleTabs.includes(tab) ? tab : 'general';

  const schema = useMemo(() => connectionFormSchema(scheduleType), [scheduleType]);
  const defaults = useMemo(() => (current ? connectionFormOf(current) : emptyConnectionForm(initialProvider(providers.data))), [current, providers.data]);
  const form = useForm<ConnectionFormValues>({
    resolver: zodResolver(schema),
    values: defaults,
    resetOptions: { keepDirtyValues: true },
  });
  const allowGroup = useWatch({ control: form.control, name: 'allowGroup' });
  const importOn = useWatch({ control: form.control, name: 'enableImportMessage' });

  // A failed submit whose errors all sit on other tabs shows the first of them (once per attempt,
  // so switching tabs by hand stays possible): state adjusted while rendering, as React advises.
  const { submitCount, errors } = form.formState;
  const [seenSubmits, setSeenSubmits] = useState(0);
  if (submitCount !== seenSubmits) {
    setSeenSubmits(submitCount);
    const other = tabOfErrors(errors, shownTab, visibleTabs);
    if (other) setTab(other);
  }

  const send = (body: ConnectionBody) => {
    const unlinks = savingUnlinks(body, current);
    save.mutate(
      { id: connection?.id ?? null, body },
      {
        onSuccess: () => {
          toast.success(unlinks ? t('connections.modal.import.savedRelink') : t('connections.saved'));
          onClose();
        },
        onError: (error) => {
          if (isApiError(error) && error.fields.length > 0) {
            const applied: string[] = [];
            for (const { field, code } of error.fields) {
              const path = normaliseFieldPath(field);
              if (!KNOWN_PATHS.includes(path)) continue;
              const message = error.code === 'ERR_NO_FLOW_FOUND' ? 'errors.ERR_NO_FLOW_FOUND' : code;
              form.setError(path as Path<ConnectionFormValues>, { type: 'server', message }, { shouldFocus: applied.length === 0 });
              applied.push(path);
            }
            const first = applied.map(tabOfField).find((name) => visibleTabs.includes(name));
            if (first && !applied.some((path) => tabOfField(path) === shownTab)) setTab(first);
          }
          toastError(error);
        },
        onSettled: () => setToConfirm(null),
      },
    );
  };

  const onSubmit = (values: ConnectionFormValues) => {
    const body = connectionBody(values, current, channel, scheduleType);
    if (savingUnlinks(body, current)) setToConfirm(body);
    else send(body);
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

  const providerLabel = (provider: string) => (isKnownProvider(provider) ? t(`connections.providers.${provider}`) : provider);
  const providerOptions = providerChoices.map((provider) => ({ value: provider, label: providerLabel(provider) }));
  const queueOptions = (queues.data ?? []).map((queue) => ({ value: queue.id, label: queue.name }));
  const noneOption = { value: '', label: t('connections.modal.none') };
  const flowOptions = (selected: number | null) => {
    const known = (flows.data ?? []).map((flow) => ({ value: flow.id, label: flow.name }));
    // A flow beyond the pages read still shows as chosen.
    const extra = selected !== null && !known.some((o) => o.value === selected) ? [{ value: selected, label: t('connections.modal.flowNumber', { id: selected }) }] : [];
    return [noneOption, ...extra, ...known];
  };
  const storedImportQueue = current?.queueIdImportMessages ?? null;
  const importQueueOptions = [
    ...(storedImportQueue !== null && !queueOptions.some((o) => o.value === storedImportQueue)
      ? [{ value: storedImportQueue, label: t('connections.modal.queueNumber', { id: storedImportQueue }) }]
      : []),
    ...queueOptions,
  ];
  const storedRedirect = current?.sendIdQueue ?? null;
  const redirectOptions = [
    noneOption,
    // The stored queue shows as chosen while the queues load.
    ...(storedRedirect !== null && !queueOptions.some((o) => o.value === storedRedirect) ? [{ value: storedRedirect, label: t('connections.modal.queueNumber', { id: storedRedirect }) }] : []),
    ...queueOptions,
  ];
  const message = (name: keyof ConnectionFormValues, label: string) => (
    <FormTextField name={name} label={label} multiline minRows={3} fullWidth testId={`connection-modal-${name}`} />
  );
  const number = (name: keyof ConnectionFormValues, label: string, helperText?: string) => (
    <FormTextField name={name} label={label} fullWidth helperText={helperText} slotProps={{ htmlInput: { inputMode: 'numeric' } }} testId={`connection-modal-${name}`} />
  );
  const date = (name: keyof ConnectionFormValues, label: string, type: 'date' | 'datetime-local' = 'date', required?: boolean) => (
    <FormTextField name={name} label={label} type={type} required={required} fullWidth slotProps={{ inputLabel: { shrink: true } }} testId={`connection-modal-${name}`} />
  );

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" scroll="paper" data-testid="connection-modal">
      <DialogTitle>{connection ? t('connections.modal.editTitle') : t('connections.modal.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="connection-form" inDialog>
        <Tabs value={shownTab} onChange={(_, value: ConnectionTab) => setTab(value)} variant="scrollable" sx={{ px: 3 }}>
          {visibleTabs.map((name) => (
            <Tab key={name} value={name} label={t(`connections.modal.tabs.${name}`)} data-testid={`connection-modal-tab-${name}`} />
          ))}
        </Tabs>
        <DialogContent dividers>
          <Box hidden={shownTab !== 'general'}>
            <Stack spacing={2}>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
                <FormTextField name="name" label={t('connections.modal.name')} required fullWidth autoFocus testId="connection-modal-name" />
                <FormSwitchField name="isDefault" label={t('connections.modal.isDefault')} testId="connection-modal-isDefault" />
              </Stack>
              {chooseProvider && (
                <FormSelectField
                  name="provider"
                  label={t('connections.modal.provider')}
                  fullWidth
                  options={providerOptions}
                  helperText={t('connections.modal.providerFixed')}
                  testId="connection-modal-provider"
                />
              )}
              {connection && isWhatsapp && current?.provider && (
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 0.5 }} data-testid="connection-modal-provider-readonly">
                  <Typography variant="body2" color="text.secondary">
                    {t('connections.modal.provider')}
                  </Typography>
                  <Chip size="small" variant="outlined" label={providerLabel(current.provider)} data-testid="connection-modal-provider-value" />
                  <Typography variant="caption" color="text.secondary">
                    {t('connections.modal.providerFixed')}
                  </Typography>
                </Stack>
              )}
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
          </Box>
          <Box hidden={shownTab !== 'messages'}>
            <Stack spacing={2}>
              {message('greetingMessage', t('connections.modal.greetingMessage'))}
              {message('complationMessage', t('connections.modal.complationMessage'))}
              {message('outOfHoursMessage', t('connections.modal.outOfHoursMessage'))}
              {message('ratingMessage', t('connections.modal.ratingMessage'))}
              <Divider />
              <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
                {t('connections.modal.vacation.title')}
              </Typography>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {date('collectiveVacationStart', t('connections.modal.vacation.start'))}
                {date('collectiveVacationEnd', t('connections.modal.vacation.end'))}
              </Stack>
              {message('collectiveVacationMessage', t('connections.modal.vacation.message'))}
            </Stack>
          </Box>
          <Box hidden={shownTab !== 'chatbot'}>
            <Stack spacing={2}>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {number('maxUseBotQueues', t('connections.modal.chatbot.maxUseBotQueues'), t('connections.modal.chatbot.maxUseBotQueuesHelp'))}
                {number('timeUseBotQueues', t('connections.modal.chatbot.timeUseBotQueues'), t('connections.modal.chatbot.minutesHelp'))}
              </Stack>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {number('timeSendQueue', t('connections.modal.chatbot.timeSendQueue'), t('connections.modal.chatbot.minutesHelp'))}
                <FormSelectField
                  name="sendIdQueue"
                  label={t('connections.modal.chatbot.sendIdQueue')}
                  fullWidth
                  options={redirectOptions}
                  testId="connection-modal-sendIdQueue"
                />
              </Stack>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {number('expiresTicket', t('connections.modal.chatbot.expiresTicket'), t('connections.modal.chatbot.minutesHelp'))}
                <FormTextField name="expiresInactiveMessage" label={t('connections.modal.chatbot.expiresInactiveMessage')} fullWidth testId="connection-modal-expiresInactiveMessage" />
              </Stack>
              <Divider />
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <FormSelectField
                  name="flowIdWelcome"
                  label={t('connections.modal.chatbot.flowIdWelcome')}
                  fullWidth
                  options={flowOptions(current?.flowIdWelcome ?? null)}
                  testId="connection-modal-flowIdWelcome"
                />
                <FormSelectField
                  name="flowIdNotPhrase"
                  label={t('connections.modal.chatbot.flowIdNotPhrase')}
                  fullWidth
                  options={flowOptions(current?.flowIdNotPhrase ?? null)}
                  testId="connection-modal-flowIdNotPhrase"
                />
              </Stack>
            </Stack>
          </Box>
          {isWhatsapp && (
            <Box hidden={shownTab !== 'import'} data-testid="connection-modal-import">
              <Stack spacing={2}>
                <Typography variant="body2" color="text.secondary">
                  {t('connections.modal.import.intro')}
                </Typography>
                <FormSwitchField name="enableImportMessage" label={t('connections.modal.import.enable')} testId="connection-modal-enableImportMessage" />
                {importOn && (
                  <>
                    {current?.status === 'CONNECTED' && (
                      <Alert severity="warning" data-testid="connection-modal-import-unlink-warning">
                        {t('connections.modal.import.connectedWarning')}
                      </Alert>
                    )}
                    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                      {date('importOldMessages', t('connections.modal.import.from'), 'datetime-local', true)}
                      {date('importRecentMessages', t('connections.modal.import.to'), 'datetime-local', true)}
                    </Stack>
                    <FormSelectField
                      name="queueIdImportMessages"
                      label={t('connections.modal.import.queue')}
                      required
                      fullWidth
                      options={importQueueOptions}
                      helperText={queues.isSuccess && queueOptions.length === 0 ? t('connections.modal.noQueues') : t('connections.modal.import.queueHelp')}
                      testId="connection-modal-queueIdImportMessages"
                    />
                    <Stack>
                      <FormCheckboxField name="importOldMessagesGroups" label={t('connections.modal.import.groups')} testId="connection-modal-importOldMessagesGroups" />
                      <FormCheckboxField
                        name="closedTicketsPostImported"
                        label={t('connections.modal.import.closeWhenDone')}
                        testId="connection-modal-closedTicketsPostImported"
                      />
                    </Stack>
                  </>
                )}
              </Stack>
            </Box>
          )}
          {showSchedules && (
            <Box hidden={shownTab !== 'schedules'}>
              <Controller
                name="schedules"
                control={form.control}
                render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} testId="connection-modal-schedule" />}
              />
            </Box>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="connection-modal-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending || (askProviders && providers.isPending)} data-testid="connection-modal-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
      <ConfirmDialog
        open={toConfirm !== null}
        title={t('connections.modal.import.unlinkTitle')}
        onClose={() => setToConfirm(null)}
        onConfirm={() => toConfirm && send(toConfirm)}
        confirmLabel={t('connections.modal.import.unlinkConfirm')}
        busy={save.isPending}
        testId="connection-modal-unlink-dialog"
      >
        {t('connections.modal.import.unlinkText')}
      </ConfirmDialog>
    </Dialog>
  );
}
