/**
 * Old-message import on a WhatsApp connection (spec 2 "Old-message import"): the dialog's date-time
 * fields (`<input type="datetime-local">`, the browser's local time to the minute) against the
 * wire's ISO 8601 instants, the dialog's checks and the progress the server reports.
 */
import type { Connection } from '../types';

/** How far back an import may start (spec 2: 2 years), in days, as the server counts it. */
export const IMPORT_MAX_DAYS_BACK = 730;

/** Translation keys of the import checks. */
export const IMPORT_ERRORS = {
  tooOld: 'connections.validation.importTooOld',
  future: 'connections.validation.importFuture',
  order: 'connections.validation.importOrder',
} as const;

const two = (n: number) => String(n).padStart(2, '0');

/** An ISO 8601 instant as a `datetime-local` value (`YYYY-MM-DDTHH:mm`, local time); '' when none. */
export function toLocalInput(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A `datetime-local` value as a Date (local time), or null when empty or not a date. */
export function parseLocalInput(value: string): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The wire value of a `datetime-local` field: the stored instant when the field still shows it
 * (its seconds are kept), else the typed minute as an ISO 8601 instant; null when empty.
 */
export function importInstant(value: string, stored: string | null | undefined): string | null {
  if (stored && toLocalInput(stored) === value) return stored;
  return parseLocalInput(value)?.toISOString() ?? null;
}

/** The earliest moment an import may start, `IMPORT_MAX_DAYS_BACK` days before `now`. */
export function importEarliest(now: Date): Date {
  return new Date(now.getTime() - IMPORT_MAX_DAYS_BACK * 24 * 60 * 60 * 1000);
}

export interface ImportFormValues {
  enableImportMessage: boolean;
  importOldMessages: string;
  importRecentMessages: string;
  queueIdImportMessages: number | '';
}

export type ImportField = keyof ImportFormValues;

/**
 * The import checks (the server's, spec 2 §5): with import on, the start is required, at most 2
 * years back and not in the future; the end is required, not before the start and not in the
 * future; the queue is required. Returns each failing field's message (a validation code or a
 * translation key).
 */
export function importFormErrors(values: ImportFormValues, now: Date): Partial<Record<ImportField, string>> {
  const errors: Partial<Record<ImportField, string>> = {};
  if (!values.enableImportMessage) return errors;
  const from = parseLocalInput(values.importOldMessages);
  const to = parseLocalInput(values.importRecentMessages);
  if (!values.importOldMessages) errors.importOldMessages = 'REQUIRED';
  else if (!from) errors.importOldMessages = 'INVALID_FORMAT';
  else if (from.getTime() < importEarliest(now).getTime()) errors.importOldMessages = IMPORT_ERRORS.tooOld;
  else if (from.getTime() > now.getTime()) errors.importOldMessages = IMPORT_ERRORS.future;
  if (!values.importRecentMessages) errors.importRecentMessages = 'REQUIRED';
  else if (!to) errors.importRecentMessages = 'INVALID_FORMAT';
  else if (from && to.getTime() < from.getTime()) errors.importRecentMessages = IMPORT_ERRORS.order;
  else if (to.getTime() > now.getTime()) errors.importRecentMessages = IMPORT_ERRORS.future;
  if (values.queueIdImportMessages === '') errors.queueIdImportMessages = 'REQUIRED';
  return errors;
}

/** The import fields of the `ConnectionInput` body. */
export interface ImportBody {
  enableImportMessage: boolean;
  importOldMessages: string | null;
  importRecentMessages: string | null;
  importOldMessagesGroups: boolean;
  closedTicketsPostImported: boolean;
  queueIdImportMessages: number | null;
}

/** The import part of the body: the form's choices when import is on, else null/false throughout. */
export function importBody(
  values: ImportFormValues & { importOldMessagesGroups: boolean; closedTicketsPostImported: boolean },
  current: Pick<Connection, 'importOldMessages' | 'importRecentMessages'> | null,
  allowed: boolean,
): ImportBody {
  if (!allowed || !values.enableImportMessage) {
    return {
      enableImportMessage: false,
      importOldMessages: null,
      importRecentMessages: null,
      importOldMessagesGroups: false,
      closedTicketsPostImported: false,
      queueIdImportMessages: null,
    };
  }
  return {
    enableImportMessage: true,
    importOldMessages: importInstant(values.importOldMessages, current?.importOldMessages),
    importRecentMessages: importInstant(values.importRecentMessages, current?.importRecentMessages),
    importOldMessagesGroups: values.importOldMessagesGroups,
    closedTicketsPostImported: values.closedTicketsPostImported,
    queueIdImportMessages: values.queueIdImportMessages === '' ? null : values.queueIdImportMessages,
  };
}

function sameInstant(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return Date.parse(a) === Date.parse(b);
}

/** Whether saving `body` changes the stored connection's import settings. */
export function importSettingsChanged(body: ImportBody, current: Connection): boolean {
  return (
    body.enableImportMessage !== current.enableImportMessage ||
    !sameInstant(body.importOldMessages, current.importOldMessages) ||
    !sameInstant(body.importRecentMessages, current.importRecentMessages) ||
    body.importOldMessagesGroups !== current.importOldMessagesGroups ||
    body.closedTicketsPostImported !== current.closedTicketsPostImported ||
    body.queueIdImportMessages !== current.queueIdImportMessages
  );
}

/**
 * Whether saving `body` unlinks the phone (spec 2: saving with import on while CONNECTED deletes
 * the session; WhatsApp sends the history only right after linking): import on, settings changed,
 * the connection CONNECTED.
 */
export function savingUnlinks(body: ImportBody, current: Connection | null): boolean {
  return !!current && current.status === 'CONNECTED' && body.enableImportMessage && importSettingsChanged(body, current);
}

/** A progress report of `importMessages-{companyId}` (`action: "update"`). */
export interface ImportProgress {
  whatsappId: number;
  /** Messages written so far; -1 while preparing (history arriving, nothing written yet). */
  done: number;
  total: number;
  /** ISO 8601 time of the last processed message. */
  date: string | null;
}

/** Whole percent written, 0 to 100 (never 100 before the last message). */
export function importPercent(progress: Pick<ImportProgress, 'done' | 'total'>): number {
  if (progress.done <= 0 || progress.total <= 0) return 0;
  return Math.min(100, Math.floor((progress.done / progress.total) * 100));
}
