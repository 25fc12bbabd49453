/**
 * Create/edit dialogs for every node type (spec 3 §2.13, §5): each validates with the spec's texts
 * and hands the node's new data back.
 */
import { useState, type ChangeEvent, type ReactNode } from 'react';
import { Controller, useFieldArray, useForm, type DefaultValues, type FieldValues } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  IconButton,
  MenuItem,
  Paper,
  Slider,
  Stack,
  Switch,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { Form, FormSelectField, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { toastFlowError } from '../utils/errors';
import { uploadFlowMedia, useFlowMedia, useQueueOptions, useTypebotIntegrations } from '../api/flows';
import { useObjectUrl } from '../../../lib/avatar';
import type { NodeData, NodeType } from '../types';
import {
  CONDITION_OPERATORS,
  RANDOMIZER_STEP,
  compressImage,
  conditionFormSchema,
  contentProblem,
  intervalFormSchema,
  intervalLabel,
  mediaProblem,
  menuFormSchema,
  messageFormSchema,
  numberOr,
  openaiFields,
  openaiFormSchema,
  positiveId,
  questionFields,
  questionFormSchema,
  randomizerFormSchema,
  rememberAnswerKey,
  ticketQueueId,
  renumberMenu,
  ticketFormSchema,
  typebotFormSchema,
  typebotFormValues,
  type ContentElement,
  type MediaType,
} from '../utils/nodes';

export interface NodeDialogProps {
  type: NodeType;
  /** The node's data when editing; null when creating. */
  data: NodeData | null;
  /**
   * The new data; for a menu, `handles` maps each earlier option handle (`a{n}`) to its new one,
   * or to null when the option was removed, so the editor can move or drop its connections.
   */
  onSubmit: (data: NodeData, handles?: Record<string, string | null>) => void;
  onClose: () => void;
}

/** The dialog for `type`. */
export function NodeDialog(props: NodeDialogProps) {
  switch (props.type) {
    case 'message':
      return <MessageDialog {...props} />;
    case 'interval':
      return <IntervalDialog {...props} />;
    case 'menu':
      return <MenuDialog {...props} />;
    case 'randomizer':
      return <RandomizerDialog {...props} />;
    case 'question':
      return <QuestionDialog {...props} />;
    case 'ticket':
      return <TicketDialog {...props} />;
    case 'typebot':
      return <TypebotDialog {...props} />;
    case 'openai':
      return <OpenAiDialog {...props} />;
    case 'condition':
      return <ConditionDialog {...props} />;
    case 'img':
    case 'audio':
    case 'video':
      return <MediaDialog {...props} media={props.type} />;
    case 'content':
      return <ContentDialog {...props} />;
    default:
      return null;
  }
}

interface ShellProps {
  type: NodeType;
  editing: boolean;
  onClose: () => void;
  children: ReactNode;
  busy?: boolean;
  title?: string;
  /** Rendered outside a form: the submit button calls this. */
  onConfirm?: () => void;
}

function DialogShell({ type, editing, onClose, children, busy, title, onConfirm }: ShellProps) {
  const { t } = useTranslation();
  const typeName = t(`flows.types.${type}`);
  return (
    <>
      <DialogTitle>{title ?? (editing ? t('flows.dialog.editTitle', { type: typeName }) : t('flows.dialog.addTitle', { type: typeName }))}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>{children}</Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="node-dialog-cancel">
          {t('flows.dialog.cancel')}
        </Button>
        <Button type={onConfirm ? 'button' : 'submit'} onClick={onConfirm} variant="contained" disabled={busy} data-testid="node-dialog-save">
          {editing ? t('flows.dialog.edit') : t('flows.dialog.add')}
        </Button>
      </DialogActions>
    </>
  );
}

/** A dialog around a react-hook-form + zod form. */
function FormDialog<S extends z.ZodType<FieldValues, FieldValues>>({
  schema,
  defaults,
  onValues,
  type,
  editing,
  onClose,
  title,
  children,
}: {
  schema: S;
  defaults: z.input<S>;
  onValues: (values: z.output<S>) => void;
  type: NodeType;
  editing: boolean;
  onClose: () => void;
  title?: string;
  children: (form: ReturnType<typeof useForm<z.input<S>, unknown, z.output<S>>>) => ReactNode;
}) {
  const form = useForm<z.input<S>, unknown, z.output<S>>({ resolver: zodResolver(schema), defaultValues: defaults as DefaultValues<z.input<S>> });
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid={`node-dialog-${type}`}>
      <Form form={form} onSubmit={onValues} testId="node-dialog-form" inDialog>
        <DialogShell type={type} editing={editing} onClose={onClose} title={title}>
          {children(form)}
        </DialogShell>
      </Form>
    </Dialog>
  );
}

function MessageDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  return (
    <FormDialog schema={messageFormSchema} defaults={{ label: String(data?.label ?? '') }} onValues={(v) => onSubmit({ ...data, label: v.label })} type="message" editing={!!data} onClose={onClose}>
      {() => <FormTextField name="label" label={t('flows.dialog.message')} multiline minRows={4} fullWidth autoFocus testId="node-message-text" />}
    </FormDialog>
  );
}

function IntervalDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const sec = typeof data?.sec === 'number' ? data.sec : '';
  return (
    <FormDialog
      schema={intervalFormSchema}
      defaults={{ sec }}
      onValues={(v) => onSubmit({ ...data, sec: v.sec, label: intervalLabel(v.sec) })}
      type="interval"
      editing={!!data}
      onClose={onClose}
    >
      {() => <FormTextField name="sec" type="number" label={t('flows.dialog.seconds')} fullWidth autoFocus testId="node-interval-sec" />}
    </FormDialog>
  );
}

function MenuDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const options = Array.isArray(data?.arrayOption)
    ? (data.arrayOption as { number?: unknown; value?: unknown }[]).map((o, i) => ({ number: Number(o.number ?? i + 1), value: String(o.value ?? '') }))
    : [{ number: 1, value: '' }];
  return (
    <FormDialog
      schema={menuFormSchema}
      defaults={{ message: String(data?.message ?? ''), arrayOption: options }}
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

function RandomizerDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const percent = typeof data?.percent === 'number' ? data.percent : 50;
  return (
    <FormDialog schema={randomizerFormSchema} defaults={{ percent }} onValues={(v) => onSubmit({ ...data, percent: v.percent })} type="randomizer" editing={!!data} onClose={onClose}>
      {(form) => (
        <Controller
          control={form.control}
          name="percent"
          render={({ field }) => (
            <Box sx={{ px: 1 }}>
              <Typography gutterBottom>{t('flows.dialog.percent', { percent: field.value })}</Typography>
              <Slider
                value={field.value}
                onChange={(_event, value) => field.onChange(value as number)}
                min={0}
                max={100}
                step={RANDOMIZER_STEP}
                marks
                valueLabelDisplay="auto"
                slotProps={{ input: { 'data-testid': 'node-randomizer-percent' } as object }}
              />
            </Box>
          )}
        />
      )}
    </FormDialog>
  );
}

function QuestionDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const current = data ? questionFields(data) : { message: '', answerKey: '' };
  return (
    <FormDialog
      schema={questionFormSchema}
      defaults={current}
      onValues={(v) => {
        rememberAnswerKey(v.answerKey.trim(), data ? current.answerKey : null);
        onSubmit({ ...data, typebotIntegration: { message: v.message, answerKey: v.answerKey.trim() } });
      }}
      type="question"
      editing={!!data}
      onClose={onClose}
      title={data ? t('flows.dialog.questionEditTitle') : t('flows.dialog.questionAddTitle')}
    >
      {() => (
        <>
          <FormTextField name="message" label={t('flows.dialog.message')} required multiline minRows={3} fullWidth autoFocus testId="node-question-message" />
          <FormTextField name="answerKey" label={t('flows.dialog.answerKey')} required fullWidth testId="node-question-key" />
        </>
      )}
    </FormDialog>
  );
}

/** The company's queues, and the same as select options. */
function useQueueSelect() {
  const queues = useQueueOptions().data ?? [];
  return { queues, options: queues.map((q) => ({ value: q.id, label: q.name })) };
}

function TicketDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const { queues, options } = useQueueSelect();
  return (
    <FormDialog
      schema={ticketFormSchema}
      defaults={{ queueId: (data && ticketQueueId(data)) ?? '' }}
      onValues={(v) => {
        const queue = queues.find((q) => q.id === v.queueId);
        onSubmit({ ...data, queue: { id: v.queueId, name: queue?.name ?? '' } });
      }}
      type="ticket"
      editing={!!data}
      onClose={onClose}
    >
      {() => <FormSelectField name="queueId" label={t('flows.dialog.queue')} options={options} fullWidth testId="node-ticket-queue" />}
    </FormDialog>
  );
}

function TypebotDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const stored = data?.typebotIntegration;
  const previous = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  return (
    <FormDialog
      schema={typebotFormSchema}
      defaults={typebotFormValues(previous)}
      onValues={(v) => onSubmit({ ...data, typebotIntegration: { ...previous, type: 'typebot', ...v } })}
      type="typebot"
      editing={!!data}
      onClose={onClose}
    >
      {(form) => (
        <>
          <TypebotIntegrationFill onFill={(values) => form.reset(values, { keepDefaultValues: true })} />
          <FormTextField name="name" label={t('flows.dialog.name')} required fullWidth autoFocus testId="node-typebot-name" />
          <FormTextField name="urlN8N" label={t('flows.dialog.typebotUrl')} required fullWidth placeholder="https://" testId="node-typebot-url" />
          <FormTextField name="typebotSlug" label={t('flows.dialog.typebotSlug')} required fullWidth testId="node-typebot-slug" />
          <Stack direction="row" spacing={2}>
            <FormTextField name="typebotExpires" type="number" label={t('flows.dialog.typebotExpires')} helperText={t('flows.dialog.typebotExpiresHelp')} fullWidth testId="node-typebot-expires" />
            <FormTextField name="typebotDelayMessage" type="number" label={t('flows.dialog.typebotDelay')} fullWidth testId="node-typebot-delay" />
          </Stack>
          <Stack direction="row" spacing={2}>
            <FormTextField name="typebotKeywordFinish" label={t('flows.dialog.typebotKeywordFinish')} fullWidth testId="node-typebot-keyword-finish" />
            <FormTextField name="typebotKeywordRestart" label={t('flows.dialog.typebotKeywordRestart')} fullWidth testId="node-typebot-keyword-restart" />
          </Stack>
          <FormTextField name="typebotUnknownMessage" label={t('flows.dialog.typebotUnknownMessage')} multiline fullWidth testId="node-typebot-unknown-message" />
          <FormTextField name="typebotRestartMessage" label={t('flows.dialog.typebotRestartMessage')} multiline fullWidth testId="node-typebot-restart-message" />
        </>
      )}
    </FormDialog>
  );
}

/** Fills the typebot form from an existing queue integration; hidden while there is none. */
function TypebotIntegrationFill({ onFill }: { onFill: (values: z.input<typeof typebotFormSchema>) => void }) {
  const { t } = useTranslation();
  const integrations = useTypebotIntegrations().data ?? [];
  const [chosen, setChosen] = useState<number | ''>('');
  if (integrations.length === 0) return null;
  const choose = (id: number) => {
    setChosen(id);
    const integration = integrations.find((i) => i.id === id);
    if (integration) onFill(typebotFormValues(integration));
  };
  return (
    <TextField
      select
      label={t('flows.dialog.integrationFill')}
      value={chosen}
      onChange={(event) => choose(Number(event.target.value))}
      fullWidth
      slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'node-typebot-integration' } as object } }}
    >
      {integrations.map((integration) => (
        <MenuItem key={integration.id} value={integration.id} data-testid={`node-typebot-integration-option-${integration.id}`}>
          {integration.name}
        </MenuItem>
      ))}
    </TextField>
  );
}

function OpenAiDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const { options: queueOptions } = useQueueSelect();
  const current = data ? openaiFields(data) : {};
  const text = (key: string, fallback = '') => (typeof current[key] === 'string' ? (current[key] as string) : fallback);
  const num = (key: string, fallback: number) => numberOr(current[key], fallback);
  return (
    <FormDialog
      schema={openaiFormSchema}
      defaults={{
        name: text('name'),
        prompt: text('prompt'),
        apiKey: text('apiKey'),
        voice: text('voice', 'texto'),
        maxTokens: num('maxTokens', 100),
        temperature: num('temperature', 1),
        maxMessages: num('maxMessages', 10),
        queueId: positiveId(current.queueId) ?? '',
      }}
      onValues={(v) => onSubmit({ typebotIntegration: { ...current, ...v, voiceKey: text('voiceKey'), voiceRegion: text('voiceRegion') } })}
      type="openai"
      editing={!!data}
      onClose={onClose}
    >
      {() => (
        <>
          <FormTextField name="name" label={t('flows.dialog.name')} required fullWidth autoFocus testId="node-openai-name" />
          <FormTextField name="prompt" label={t('flows.dialog.prompt')} required multiline minRows={4} fullWidth testId="node-openai-prompt" />
          <FormTextField name="apiKey" label={t('flows.dialog.apiKey')} required type="password" fullWidth testId="node-openai-key" />
          <FormSelectField name="voice" label={t('flows.dialog.voice')} options={[{ value: 'texto', label: t('flows.dialog.voiceText') }]} fullWidth testId="node-openai-voice" />
          <Stack direction="row" spacing={2}>
            <FormTextField name="maxTokens" type="number" label={t('flows.dialog.maxTokens')} fullWidth testId="node-openai-tokens" />
            <FormTextField name="temperature" type="number" label={t('flows.dialog.temperature')} fullWidth slotProps={{ htmlInput: { step: 0.1 } }} testId="node-openai-temperature" />
            <FormTextField name="maxMessages" type="number" label={t('flows.dialog.maxMessages')} fullWidth testId="node-openai-messages" />
          </Stack>
          <FormSelectField
            name="queueId"
            label={t('flows.dialog.handoverQueue')}
            options={[{ value: '', label: t('flows.node.noQueue') }, ...queueOptions]}
            fullWidth
            testId="node-openai-queue"
          />
        </>
      )}
    </FormDialog>
  );
}

function ConditionDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const options = CONDITION_OPERATORS.map((op) => ({ value: op, label: t(`flows.dialog.operators.${op}`) }));
  return (
    <FormDialog
      schema={conditionFormSchema}
      defaults={{ key: String(data?.key ?? ''), condition: String(data?.condition ?? '=='), value: String(data?.value ?? '') }}
      onValues={(v) => onSubmit({ ...data, key: v.key.trim(), condition: v.condition, value: v.value })}
      type="condition"
      editing={!!data}
      onClose={onClose}
    >
      {() => (
        <>
          <FormTextField name="key" label={t('flows.dialog.key')} required fullWidth autoFocus testId="node-condition-key" />
          <FormSelectField name="condition" label={t('flows.dialog.condition')} options={options} fullWidth testId="node-condition-operator" />
          <FormTextField name="value" label={t('flows.dialog.value')} fullWidth testId="node-condition-value" />
        </>
      )}
    </FormDialog>
  );
}

const ACCEPT: Record<MediaType, string> = { img: '.png,.jpg,.jpeg', audio: '.ogg,.mp3', video: '.mp4' };

/** Checks, compresses (images) and uploads one file; returns the stored name or null. */
async function uploadOne(kind: MediaType, file: File, inContent: boolean, onProblem: (key: string) => void): Promise<string | null> {
  const problem = mediaProblem(kind, file, inContent);
  if (problem) {
    onProblem(problem);
    return null;
  }
  const prepared = kind === 'img' ? await compressImage(file) : file;
  try {
    const [name] = await uploadFlowMedia(inContent ? 'content' : kind, [prepared]);
    return name ?? null;
  } catch (error) {
    // The server's verdict on type and size reads like the browser's own check.
    if (isApiError(error) && (error.code === 'ERR_FLOW_MEDIA_TOO_LARGE' || error.code === 'ERR_PAYLOAD_TOO_LARGE' || error.status === 413)) {
      onProblem(`flows.validation.${kind}TooLarge`);
      return null;
    }
    if (isApiError(error) && error.code === 'ERR_FLOW_MEDIA_TYPE') {
      onProblem(`flows.validation.${kind}Type`);
      return null;
    }
    throw error;
  }
}

/** Shows a stored image, or plays a stored audio or video. */
function MediaPreview({ kind, name }: { kind: MediaType; name: string }) {
  const media = useFlowMedia(name);
  const url = useObjectUrl(media.data);
  if (!url) return null;
  if (kind === 'img') return <Box component="img" src={url} alt={name} sx={{ maxWidth: '100%', maxHeight: 240, objectFit: 'contain' }} data-testid="node-media-preview" />;
  if (kind === 'audio') return <audio controls src={url} data-testid="node-media-preview" />;
  return <Box component="video" controls src={url} sx={{ maxWidth: '100%', maxHeight: 240 }} data-testid="node-media-preview" />;
}

function MediaDialog({ data, onSubmit, onClose, media }: NodeDialogProps & { media: MediaType }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState(String(data?.url ?? ''));
  const [record, setRecord] = useState(data?.record === true);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    setBusy(true);
    try {
      const name = await uploadOne(media, file, false, setProblem);
      if (name) setUrl(name);
    } catch (error) {
      toastFlowError(error, t);
    } finally {
      setBusy(false);
    }
  };

  const confirm = () => {
    if (!url) {
      setProblem('flows.validation.emptyMedia');
      return;
    }
    onSubmit({ ...data, url, ...(media === 'audio' ? { record } : {}) });
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid={`node-dialog-${media}`}>
      <DialogShell type={media} editing={!!data} onClose={onClose} busy={busy} onConfirm={confirm}>
        <Button variant="outlined" component="label" disabled={busy} data-testid="node-media-choose">
          {busy ? t('flows.dialog.uploading') : t('flows.dialog.file')}
          <input type="file" hidden accept={ACCEPT[media]} onChange={(event) => void onFile(event)} data-testid="node-media-file" />
        </Button>
        <Typography variant="body2" data-testid="node-media-name">
          {url || t('flows.node.noFile')}
        </Typography>
        {url && <MediaPreview kind={media} name={url} />}
        {media === 'audio' && (
          <FormControlLabel control={<Switch checked={record} onChange={(event) => setRecord(event.target.checked)} />} label={t('flows.dialog.record')} />
        )}
        {problem && (
          <Alert severity="error" data-testid="node-dialog-error">
            {t(problem as 'flows.validation.emptyMedia')}
          </Alert>
        )}
      </DialogShell>
    </Dialog>
  );
}

function readElements(data: NodeData | null): ContentElement[] {
  if (!data || !Array.isArray(data.elements)) return [];
  const elements = (data.elements as Record<string, unknown>[]).map((e): ContentElement => {
    const type = (['message', 'interval', 'img', 'audio', 'video'].includes(String(e.type)) ? e.type : 'message') as ContentElement['type'];
    return {
      type,
      value: String(e.value ?? ''),
      original: String(e.original ?? ''),
      number: String(e.number ?? ''),
      ...(type === 'audio' ? { record: e.record === true } : {}),
    };
  });
  const seq = Array.isArray(data.seq) ? (data.seq as unknown[]).map(String) : [];
  return [...elements].sort((a, b) => {
    const ia = seq.indexOf(a.number);
    const ib = seq.indexOf(b.number);
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  });
}

function ContentDialog({ data, onSubmit, onClose }: NodeDialogProps) {
  const { t } = useTranslation();
  const [elements, setElements] = useState<ContentElement[]>(() => readElements(data));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const add = (type: ContentElement['type']) => {
    const used = new Set(elements.map((e) => e.number));
    let n = 0;
    while (used.has(`${type}${n}`)) n += 1;
    setElements([...elements, { type, value: '', original: '', number: `${type}${n}`, ...(type === 'audio' ? { record: false } : {}) }]);
  };
  const update = (index: number, patch: Partial<ContentElement>) => setElements((list) => list.map((e, i) => (i === index ? { ...e, ...patch } : e)));
  const move = (index: number, by: number) =>
    setElements((list) => {
      const next = [...list];
      const [item] = next.splice(index, 1);
      next.splice(Math.max(0, Math.min(next.length, index + by)), 0, item);
      return next;
    });

  const onFile = async (index: number, kind: MediaType, event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    setBusy(true);
    try {
      const name = await uploadOne(kind, file, true, setProblem);
      if (name) update(index, { value: name, original: file.name });
    } catch (error) {
      toastFlowError(error, t);
    } finally {
      setBusy(false);
    }
  };

  const confirm = () => {
    const found = contentProblem(elements);
    if (found) {
      setProblem(found);
      return;
    }
    onSubmit({ ...data, seq: elements.map((e) => e.number), elements: elements.map((e) => ({ ...e })) });
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" data-testid="node-dialog-content">
      <DialogShell type="content" editing={!!data} onClose={onClose} busy={busy} onConfirm={confirm}>
        {elements.map((element, index) => (
          <Paper key={element.number} variant="outlined" sx={{ p: 1.5 }} data-testid={`node-content-element-${index}`}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="subtitle2" sx={{ minWidth: 72 }}>
                {t(`flows.types.${element.type}`)}
              </Typography>
              <Box sx={{ flex: 1 }}>
                {element.type === 'message' && (
                  <TextField
                    multiline
                    minRows={2}
                    fullWidth
                    size="small"
                    value={element.value}
                    onChange={(event) => update(index, { value: event.target.value })}
                    slotProps={{ htmlInput: { 'data-testid': `node-content-value-${index}` } }}
                  />
                )}
                {element.type === 'interval' && (
                  <TextField
                    type="number"
                    size="small"
                    label={t('flows.dialog.seconds')}
                    value={element.value}
                    onChange={(event) => update(index, { value: event.target.value })}
                    slotProps={{ htmlInput: { 'data-testid': `node-content-value-${index}` } }}
                  />
                )}
                {(element.type === 'img' || element.type === 'audio' || element.type === 'video') && (
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <Button size="small" variant="outlined" component="label" disabled={busy}>
                      {t('flows.dialog.file')}
                      <input
                        type="file"
                        hidden
                        accept={element.type === 'audio' ? '.ogg,.mp3,.opus' : ACCEPT[element.type]}
                        onChange={(event) => void onFile(index, element.type as MediaType, event)}
                        data-testid={`node-content-file-${index}`}
                      />
                    </Button>
                    <Typography variant="body2">{element.original || element.value || t('flows.node.noFile')}</Typography>
                    {element.type === 'audio' && (
                      <FormControlLabel
                        control={<Switch size="small" checked={!!element.record} onChange={(event) => update(index, { record: event.target.checked })} />}
                        label={t('flows.dialog.record')}
                      />
                    )}
                  </Stack>
                )}
              </Box>
              <IconButton size="small" onClick={() => move(index, -1)} disabled={index === 0} aria-label={t('flows.dialog.moveUp')}>
                <ArrowUpwardIcon fontSize="small" />
              </IconButton>
              <IconButton size="small" onClick={() => move(index, 1)} disabled={index === elements.length - 1} aria-label={t('flows.dialog.moveDown')}>
                <ArrowDownwardIcon fontSize="small" />
              </IconButton>
              <IconButton size="small" onClick={() => setElements((list) => list.filter((_, i) => i !== index))} aria-label={t('flows.dialog.removeElement')} data-testid={`node-content-remove-${index}`}>
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </Stack>
          </Paper>
        ))}
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('message')} data-testid="node-content-add-message">
            {t('flows.dialog.addText')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('interval')} data-testid="node-content-add-interval">
            {t('flows.dialog.addInterval')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('img')} data-testid="node-content-add-img">
            {t('flows.dialog.addImage')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('audio')} data-testid="node-content-add-audio">
            {t('flows.dialog.addAudio')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('video')} data-testid="node-content-add-video">
            {t('flows.dialog.addVideo')}
          </Button>
        </Stack>
        {problem && (
          <Alert severity="error" data-testid="node-dialog-error">
            {t(problem as 'flows.validation.emptyMedia')}
          </Alert>
        )}
      </DialogShell>
    </Dialog>
  );
}
