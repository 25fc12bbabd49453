/**
 * The queue dialog's form: values, the client-side checks of spec 2 §5 and the request body.
 *
 * - name and colour by the core's rule (required, 2-50 and 3-9 characters; `checkedByCore`);
 * - a chatbot option's name at least 4 characters and required; an option with sub-options needs
 *   its message (the text shown before the next level);
 * - the out-of-hours message is required when the company's hours are kept per queue.
 */
import { z } from 'zod/mini';
import { QUEUE_TYPES, ROTATION_MINUTES, type ChatbotOption, type Queue, type QueueInput, type QueueType } from '../types';
import { completeWeek, defaultSchedules, type ScheduleRow, type ScheduleType } from '../../../lib/business-hours/week';
import { scheduleRowsSchema } from '../../../lib/business-hours/rows';
import { checkedByCore } from '../../../lib/wasm/forms';

/** One option in the editor. `optionId` is the stored id (`id` is react-hook-form's own key). */
export interface ChatbotOptionForm {
  optionId: number | null;
  name: string;
  greetingMessage: string;
  queueType: QueueType;
  optQueueId: number | null;
  optUserId: number | null;
  /** Typed as text until the integrations page exists. */
  optIntegrationId: string;
  /** Typed as text until the file lists page exists. */
  optFileId: string;
  closeTicket: boolean;
  options: ChatbotOptionForm[];
}

export const OPTION_ERRORS = {
  nameTooShort: 'queues.validation.optionNameTooShort',
  messageRequired: 'queues.validation.optionMessageRequired',
  outOfHoursRequired: 'queues.validation.outOfHoursRequired',
  greetingRequired: 'errors.ERR_WAPP_GREETING_REQUIRED',
} as const;

const DIGITS = /^\d*$/;

export const chatbotOptionFormSchema: z.ZodMiniType<ChatbotOptionForm, ChatbotOptionForm> = z.lazy(() =>
  z
    .object({
      optionId: z.nullable(z.number()),
      name: z.string().check(
        z.refine((v) => v.trim().length > 0, 'REQUIRED'),
        z.refine((v) => v.trim().length === 0 || v.trim().length >= 4, OPTION_ERRORS.nameTooShort),
      ),
      greetingMessage: z.string(),
      queueType: z.enum(QUEUE_TYPES),
      optQueueId: z.nullable(z.number()),
      optUserId: z.nullable(z.number()),
      optIntegrationId: z.string().check(z.regex(DIGITS, 'INVALID_FORMAT')),
      optFileId: z.string().check(z.regex(DIGITS, 'INVALID_FORMAT')),
      closeTicket: z.boolean(),
      options: z.array(chatbotOptionFormSchema),
    })
    .check(
      z.superRefine((option, ctx) => {
        if (option.options.length > 0 && !option.greetingMessage.trim()) {
          ctx.addIssue({ code: 'custom', path: ['greetingMessage'], message: OPTION_ERRORS.messageRequired });
        }
        // Each type needs its target.
        if (option.queueType === 'queue' && option.optQueueId === null) ctx.addIssue({ code: 'custom', path: ['optQueueId'], message: 'REQUIRED' });
        if (option.queueType === 'attendent' && option.optUserId === null) ctx.addIssue({ code: 'custom', path: ['optUserId'], message: 'REQUIRED' });
        if (option.queueType === 'integration' && !option.optIntegrationId) ctx.addIssue({ code: 'custom', path: ['optIntegrationId'], message: 'REQUIRED' });
        if (option.queueType === 'file' && !option.optFileId) ctx.addIssue({ code: 'custom', path: ['optFileId'], message: 'REQUIRED' });
      }),
    ),
);

const queueFormBase = z.object({
  name: z.string(),
  color: z.string(),
  orderQueue: z.string().check(z.trim(), z.regex(DIGITS, 'INVALID_FORMAT')),
  greetingMessage: z.string(),
  outOfHoursMessage: z.string(),
  closeTicket: z.boolean(),
  ativarRoteador: z.boolean(),
  tempoRoteador: z.number().check(z.refine((v) => (ROTATION_MINUTES as readonly number[]).includes(v), 'OUT_OF_RANGE')),
  schedules: scheduleRowsSchema,
  chatbots: z.array(chatbotOptionFormSchema),
});
export type QueueFormValues = z.infer<typeof queueFormBase>;

/** The fields of the first tab's top level (server errors on them are shown there). */
export const QUEUE_FORM_FIELDS = Object.keys(queueFormBase.shape) as (keyof QueueFormValues)[];

/** Client checks; the out-of-hours message is required only when hours are kept per queue. */
/**
 * The dialog's rules as the server checks them (`validate_queue_input`): the out-of-hours message
 * with hours per queue, and the greeting when the company has other queues (`hasOtherQueues`), so
 * the user sees both before saving.
 */
export function queueFormSchema(scheduleType: ScheduleType | undefined, hasOtherQueues = false) {
  // Name and colour by the core's rule (`validate_queue`), the same the server applies.
  return checkedByCore(queueFormBase, (v) => ({ form: 'queue', name: v.name, color: v.color })).check(
    z.superRefine((value, ctx) => {
      if (scheduleType === 'queue' && !value.outOfHoursMessage.trim()) {
        ctx.addIssue({ code: 'custom', path: ['outOfHoursMessage'], message: OPTION_ERRORS.outOfHoursRequired });
      }
      if (hasOtherQueues && !value.greetingMessage.trim()) {
        ctx.addIssue({ code: 'custom', path: ['greetingMessage'], message: OPTION_ERRORS.greetingRequired });
      }
    }),
  );
}

export const DEFAULT_QUEUE_COLOR = '#5c59a0';

/** Distinct colours offered to new queues in turn (the server refuses a colour already used). */
export const QUEUE_COLORS = [
  DEFAULT_QUEUE_COLOR,
  '#2e7d32',
  '#c62828',
  '#1565c0',
  '#ef6c00',
  '#6a1b9a',
  '#00838f',
  '#ad1457',
  '#4e342e',
  '#558b2f',
  '#283593',
  '#f9a825',
] as const;

/** The first colour of [`QUEUE_COLORS`] no queue uses, else one made from the count (hue steps). */
export function unusedQueueColor(used: readonly string[]): string {
  const taken = new Set(used.map((color) => color.trim().toLowerCase()));
  const free = QUEUE_COLORS.find((color) => !taken.has(color));
  if (free) return free;
  for (let i = 0; ; i += 1) {
    const color = hslToHex((i * 137.508) % 360, 0.55, 0.42);
    if (!taken.has(color)) return color;
  }
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255).toString(16).padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

export function emptyOption(): ChatbotOptionForm {
  return {
    optionId: null,
    name: '',
    greetingMessage: '',
    queueType: 'text',
    optQueueId: null,
    optUserId: null,
    optIntegrationId: '',
    optFileId: '',
    closeTicket: false,
    options: [],
  };
}

/** A new queue's form, its colour one no other queue of the company uses. */
export function emptyQueueForm(usedColors: readonly string[] = []): QueueFormValues {
  return {
    name: '',
    color: unusedQueueColor(usedColors),
    orderQueue: '',
    greetingMessage: '',
    outOfHoursMessage: '',
    closeTicket: false,
    ativarRoteador: false,
    tempoRoteador: 0,
    schedules: defaultSchedules(),
    chatbots: [],
  };
}

function optionFormOf(option: ChatbotOption): ChatbotOptionForm {
  return {
    optionId: option.id,
    name: option.name,
    greetingMessage: option.greetingMessage,
    queueType: option.queueType,
    optQueueId: option.optQueueId,
    optUserId: option.optUserId,
    optIntegrationId: option.optIntegrationId === null ? '' : String(option.optIntegrationId),
    optFileId: option.optFileId === null ? '' : String(option.optFileId),
    closeTicket: option.closeTicket,
    options: option.options.map(optionFormOf),
  };
}

export function queueFormOf(queue: Queue): QueueFormValues {
  return {
    name: queue.name,
    color: queue.color,
    orderQueue: queue.orderQueue === null ? '' : String(queue.orderQueue),
    greetingMessage: queue.greetingMessage,
    outOfHoursMessage: queue.outOfHoursMessage,
    closeTicket: queue.closeTicket,
    ativarRoteador: queue.ativarRoteador,
    tempoRoteador: (ROTATION_MINUTES as readonly number[]).includes(queue.tempoRoteador) ? queue.tempoRoteador : 0,
    schedules: completeWeek(queue.schedules),
    chatbots: queue.chatbots.map(optionFormOf),
  };
}

function numberOrNull(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : Number(trimmed);
}

/** The wire option: only the target of the option's own type is kept. */
export function optionBody(option: ChatbotOptionForm): ChatbotOption {
  return {
    id: option.optionId,
    name: option.name.trim(),
    greetingMessage: option.greetingMessage,
    queueType: option.queueType,
    optQueueId: option.queueType === 'queue' ? option.optQueueId : null,
    optUserId: option.queueType === 'attendent' ? option.optUserId : null,
    optIntegrationId: option.queueType === 'integration' ? numberOrNull(option.optIntegrationId) : null,
    optFileId: option.queueType === 'file' ? numberOrNull(option.optFileId) : null,
    closeTicket: option.closeTicket,
    options: option.options.map(optionBody),
  };
}

/**
 * The body of `POST/PUT /queue`. Hours are sent only when they are kept per queue (otherwise the
 * stored rows stay); links this dialog does not edit yet (integration, file list) keep their value.
 */
export function queueBody(values: QueueFormValues, options: { scheduleType: ScheduleType | undefined; current: Queue | null }): QueueInput {
  const body: QueueInput = {
    name: values.name.trim(),
    color: values.color.trim(),
    orderQueue: numberOrNull(values.orderQueue),
    greetingMessage: values.greetingMessage,
    outOfHoursMessage: values.outOfHoursMessage,
    closeTicket: values.closeTicket,
    ativarRoteador: values.ativarRoteador,
    tempoRoteador: values.tempoRoteador,
    integrationId: options.current?.integrationId ?? null,
    fileListId: options.current?.fileListId ?? null,
    chatbots: values.chatbots.map(optionBody),
  };
  if (options.scheduleType === 'queue') body.schedules = values.schedules.map((row): ScheduleRow => ({ ...row }));
  return body;
}

/**
 * Every field path of the form, nested options included (`chatbots.0.options.1.name`), so that a
 * server field error lands on its field.
 */
export function formFieldPaths(values: QueueFormValues): string[] {
  const paths: string[] = [...QUEUE_FORM_FIELDS];
  const walk = (options: ChatbotOptionForm[], prefix: string) => {
    options.forEach((option, index) => {
      const base = `${prefix}.${index}`;
      for (const field of ['name', 'greetingMessage', 'queueType', 'optQueueId', 'optUserId', 'optIntegrationId', 'optFileId']) paths.push(`${base}.${field}`);
      walk(option.options, `${base}.options`);
    });
  };
  walk(values.chatbots, 'chatbots');
  return paths;
}

/** `chatbots[0].options[1].name` → `chatbots.0.options.1.name`. */
export function normaliseFieldPath(field: string): string {
  return field.replace(/\[(\d+)\]/g, '.$1');
}
