/**
 * Node data defaults, summaries and the dialogs' validation (spec 3 §3, §5, §9). Messages are
 * translation keys under `flows.validation`; the Portuguese texts are the spec's.
 */
import { z } from 'zod/mini';
import { acceptOf, hasExtension } from '../../../lib/files';
import type { JsonValue, OpenAiData, OpenAiSettings, QuestionData, StartData, TicketData } from '../../../lib/core-types/generated';
import type { FlowLimits } from '../../../lib/wasm/rules';
import type { NodeType } from '../types';

// The flow limits (longest interval, largest media file, media types, condition operators) are the core's:
// `FlowLimits` from `lib/wasm/rules` (`chatflow_core::flow::flow_limits`), passed in below.

/** JPEG quality used when compressing images before upload. */
export const IMAGE_QUALITY = 0.7;
/** Randomizer slider. */
export const RANDOMIZER_STEP = 10;

/** The node types the speed dial adds, in its order. */
export const ADDABLE_TYPES: NodeType[] = ['start', 'content', 'menu', 'randomizer', 'interval', 'ticket', 'typebot', 'openai', 'question', 'message', 'img', 'audio', 'video', 'condition'];

export function intervalLabel(sec: number): string {
  return `Intervalo ${sec} seg.`;
}

/** Data of a freshly added start node. */
export function startData(): StartData {
  return { label: 'Inicio do fluxo' };
}

const required = 'flows.validation.required';
const emptyMessage = 'flows.validation.emptyMessage';

export const messageFormSchema = z.object({ label: z.string().check(z.refine((v) => v.trim().length > 0, emptyMessage)) });

/** The interval dialog's form, held to the core's longest interval. */
export function intervalFormSchema(limits: FlowLimits) {
  return z.object({
    sec: z.coerce
      .number<string | number>({ error: 'flows.validation.intervalMissing' })
      .check(
        z.refine((v) => Number.isFinite(v) && v > 0, 'flows.validation.intervalMissing'),
        z.refine((v) => v <= limits.maxIntervalSeconds, 'flows.validation.intervalMax'),
      ),
  });
}

export const menuFormSchema = z.object({
  message: z.string().check(z.refine((v) => v.trim().length > 0, emptyMessage)),
  arrayOption: z
    .array(z.object({ number: z.number(), value: z.string().check(z.refine((v) => v.trim().length > 0, emptyMessage)) }))
    .check(z.minLength(1, 'flows.validation.menuOptions')),
});

/**
 * Numbers a menu's options 1..n in their new order. `options` carry their earlier number (0 for
 * new ones); `handles` maps every earlier handle `a{n}` to its new handle, or null when removed.
 */
export function renumberMenu(
  before: readonly { number: number }[],
  after: readonly { number: number; value: string }[],
): { arrayOption: { number: number; value: string }[]; handles: Record<string, string | null> } {
  const handles: Record<string, string | null> = {};
  for (const option of before) handles[`a${option.number}`] = null;
  const arrayOption = after.map((option, index) => {
    if (option.number > 0 && `a${option.number}` in handles) handles[`a${option.number}`] = `a${index + 1}`;
    return { number: index + 1, value: option.value };
  });
  return { arrayOption, handles };
}

export const randomizerFormSchema = z.object({ percent: z.number().check(z.minimum(0), z.maximum(100)) });

export const questionFormSchema = z.object({
  message: z.string().check(z.refine((v) => v.trim().length > 0, required)),
  answerKey: z.string().check(z.refine((v) => v.trim().length > 0, required)),
});

export const ticketFormSchema = z.object({
  queueId: z.union([z.number(), z.literal('')]).check(z.refine((v) => typeof v === 'number' && v > 0, 'flows.validation.queueRequired')),
});

/** An http(s) URL with a host. */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.length > 0;
  } catch {
    return false;
  }
}

/** A whole number ≥ 0 typed in a field (text or number), as a number. */
const wholeNumber = z.pipe(
  z
    .union([z.number(), z.string()])
    .check(z.refine((v) => String(v).trim() !== '' && Number.isInteger(Number(v)) && Number(v) >= 0, 'flows.validation.wholeNumber')),
  z.transform(Number),
);

/** A typebot node's settings (spec 3 "Queue integration"), read by the server as `typebotIntegration`. */
export const typebotFormSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, required)),
  urlN8N: z.string().check(z.trim(), z.minLength(1, { error: required, abort: true }), z.refine(isHttpUrl, 'flows.validation.httpUrl')),
  typebotSlug: z.string().check(z.trim(), z.minLength(1, required)),
  typebotExpires: wholeNumber,
  typebotDelayMessage: wholeNumber,
  typebotKeywordFinish: z.string().check(z.trim()),
  typebotKeywordRestart: z.string().check(z.trim()),
  typebotUnknownMessage: z.string().check(z.trim()),
  typebotRestartMessage: z.string().check(z.trim()),
});

export const openaiFormSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, required)),
  prompt: z.string().check(z.trim(), z.minLength(1, required)),
  apiKey: z.string().check(z.trim(), z.minLength(1, required)),
  voice: z.string(),
  maxTokens: z.coerce.number<string | number>().check(z.int(), z.minimum(1, 'OUT_OF_RANGE')),
  temperature: z.coerce.number<string | number>().check(z.minimum(0, 'OUT_OF_RANGE'), z.maximum(2, 'OUT_OF_RANGE')),
  maxMessages: z.coerce.number<string | number>().check(z.int(), z.minimum(1, 'OUT_OF_RANGE')),
  /** The queue the ticket moves to when the assistant hands over to a person; '' for none. */
  queueId: z.pipe(z.union([z.number(), z.literal('')]), z.transform((v) => (v === '' ? null : v))),
});

export const conditionFormSchema = z
  .object({ key: z.string().check(z.trim(), z.minLength(1, required)), condition: z.string().check(z.minLength(1, required)), value: z.string() })
  .check(z.refine((v) => v.condition === 'empty' || v.condition === 'not_empty' || v.value.trim().length > 0, { path: ['value'], message: required }));

/** A content element as the dialog edits it (spec 3 §3): the core's, its type one of the five it runs. */
export interface ContentElement {
  type: 'message' | 'interval' | 'img' | 'audio' | 'video';
  value: string;
  original: string;
  number: string;
  record: boolean;
}

/** The first problem of a content node's elements, as a `flows.validation` key, or null. */
export function contentProblem(elements: readonly Omit<ContentElement, 'record'>[], limits: FlowLimits): string | null {
  if (elements.length === 0) return 'flows.validation.contentEmpty';
  for (const element of elements) {
    if (element.type === 'message' && !element.value.trim()) return emptyMessage;
    if (element.type === 'interval') {
      const sec = Number(element.value);
      if (!Number.isFinite(sec) || sec <= 0 || sec > limits.maxIntervalSeconds) return 'flows.validation.contentInterval';
    }
    if ((element.type === 'img' || element.type === 'audio' || element.type === 'video') && !element.value) return 'flows.validation.emptyMedia';
  }
  return null;
}

export type MediaType = 'img' | 'audio' | 'video';

/** The extensions a media node (or, with `inContent`, a content element) accepts: the core's lists. */
export function mediaExtensions(limits: FlowLimits, type: MediaType, inContent = false): readonly string[] {
  if (type === 'img') return limits.imageExtensions;
  if (type === 'audio') return inContent ? limits.contentAudioExtensions : limits.audioExtensions;
  return limits.videoExtensions;
}

/** The file picker's `accept` for a kind of flow media. */
export function mediaAccept(limits: FlowLimits, type: MediaType, inContent = false): string {
  return acceptOf(mediaExtensions(limits, type, inContent));
}

/** Checks a file for a media node or content element; the `flows.validation` key or null. */
export function mediaProblem(type: MediaType, file: Pick<File, 'name' | 'size'>, limits: FlowLimits, inContent = false): string | null {
  if (!hasExtension(file.name, mediaExtensions(limits, type, inContent))) return `flows.validation.${type}Type`;
  const limit = type === 'img' ? limits.maxImageBytes : type === 'audio' ? limits.maxAudioBytes : limits.maxVideoBytes;
  if (file.size > limit) return `flows.validation.${type}TooLarge`;
  return null;
}

/** Re-encodes an image as JPEG at quality 0.7; the original when the browser cannot. */
export async function compressImage(file: File): Promise<File> {
  if (typeof createImageBitmap !== 'function' || typeof document === 'undefined') return file;
  try {
    const bitmap = await createImageBitmap(file);
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    const context = canvas.getContext('2d');
    if (!context) return file;
    // JPEG has no transparency: transparent pixels of a PNG become white, not black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(bitmap, 0, 0);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', IMAGE_QUALITY));
    if (!blob || blob.size >= file.size) return file;
    return new File([blob], file.name.replace(/\.(png|jpe?g)$/i, '.jpg'), { type: 'image/jpeg' });
  } catch {
    return file;
  }
}

/** A stored number (a number or numeric text), or `fallback`. */
export function numberOr(value: unknown, fallback: number): number {
  const number = typeof value === 'string' && value.trim() ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : fallback;
}

/** A stored id (a number or numeric text) when positive, else null. */
export function positiveId(value: unknown): number | null {
  const id = numberOr(value, 0);
  return id > 0 ? id : null;
}

/** A kept value as text: strings as they are, numbers and booleans printed, anything else empty. */
export function valueText(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** The queue id of a ticket node (a number, numeric text or `{id, name}`). */
export function ticketQueueId(data: TicketData): number | null {
  const { queue } = data;
  return positiveId(queue && typeof queue === 'object' && !Array.isArray(queue) ? queue.id : queue);
}

/** The queue name a ticket node saved with its queue, or ''. */
export function ticketQueueName(data: TicketData): string {
  const { queue } = data;
  return queue && typeof queue === 'object' && !Array.isArray(queue) ? valueText(queue.name) : '';
}

/** A question node's message and answer key (nested under `typebotIntegration` or flat). */
export function questionFields(data: QuestionData): { message: string; answerKey: string } {
  const nested = data.typebotIntegration;
  return {
    message: nested ? nested.message : valueText(data.message),
    answerKey: nested ? nested.answerKey : valueText(data.answerKey),
  };
}

/** OpenAI settings (nested under `typebotIntegration` or flat). */
export function openaiFields(data: OpenAiData): OpenAiSettings {
  return data.typebotIntegration ?? data;
}

/** The flat settings of an `openai` node whose settings are nested, as the core writes them. */
export const EMPTY_OPENAI_SETTINGS: OpenAiSettings = {
  name: '',
  prompt: '',
  voice: '',
  voiceKey: '',
  voiceRegion: '',
  maxTokens: null,
  temperature: null,
  apiKey: '',
  queueId: null,
  maxMessages: null,
};

/** Spec 3 defaults: a Typebot session expires after 1 idle minute; 1000 ms between messages. */
export const TYPEBOT_DEFAULT_EXPIRES_MINUTES = 1;
export const TYPEBOT_DEFAULT_DELAY_MS = 1000;

/**
 * The typebot dialog's values from a node's `typebotIntegration` or a queue integration
 * (numbers may be numeric text); anything else gives the defaults.
 */
export function typebotFormValues(source: unknown): z.input<typeof typebotFormSchema> {
  const settings = source && typeof source === 'object' ? (source as Record<string, unknown>) : {};
  const text = (key: string) => (typeof settings[key] === 'string' || typeof settings[key] === 'number' ? String(settings[key]) : '');
  return {
    name: text('name'),
    urlN8N: text('urlN8N'),
    typebotSlug: text('typebotSlug'),
    typebotExpires: numberOr(settings.typebotExpires, TYPEBOT_DEFAULT_EXPIRES_MINUTES),
    typebotDelayMessage: numberOr(settings.typebotDelayMessage, TYPEBOT_DEFAULT_DELAY_MS),
    typebotKeywordFinish: text('typebotKeywordFinish'),
    typebotKeywordRestart: text('typebotKeywordRestart'),
    typebotUnknownMessage: text('typebotUnknownMessage'),
    typebotRestartMessage: text('typebotRestartMessage'),
  };
}

const VARIABLES_KEY = 'variables';

/** The answer keys the browser keeps (spec 3 §3 "Browser-stored keys"). */
export function storedVariables(): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(VARIABLES_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Creating a question adds its key; editing replaces the earlier key with the new one. */
export function rememberAnswerKey(next: string, previous: string | null): void {
  const list = storedVariables().filter((v) => v !== previous && v !== next);
  list.push(next);
  try {
    localStorage.setItem(VARIABLES_KEY, JSON.stringify(list));
  } catch {
    // storage unavailable: nothing kept
  }
}
