import { z } from 'zod/mini';
import { scheduleRowSchema } from '../../lib/business-hours/week';

/** Session statuses (spec 2 §4), as on the wire. */
export const CONNECTION_STATUSES = ['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING', 'CONNECTED'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** Statuses that put a badge on the side menu's connections entry (spec 1 "Side menu"). */
export function needsAttention(status: ConnectionStatus): boolean {
  return status !== 'CONNECTED';
}

const text = z.pipe(z.nullish(z.string()), z.transform((v) => v ?? ''));

/** Why a session is in its state (core/src/inbox/model.rs `SessionReason`), by `kind`. */
export const SESSION_REASON_KINDS = [
  'loggedOut',
  'replaced',
  'temporaryBan',
  'outdated',
  'qrExhausted',
  'pairCodeError',
  'passkeyRequired',
  'deaf',
  'leaseLost',
  'reconnecting',
  'failed',
] as const;
export type SessionReasonKind = (typeof SESSION_REASON_KINDS)[number];

/** A session reason; one this version does not know is read as none. */
export const sessionReasonSchema = z.catch(
  z.nullish(
    z.looseObject({
      kind: z.enum(SESSION_REASON_KINDS),
      code: z.optional(z.number()),
      throttled: z.optional(z.boolean()),
      message: z.optional(z.string()),
    }),
  ),
  null,
);
export type SessionReason = NonNullable<z.infer<typeof sessionReasonSchema>>;
const int = (fallback: number) => z.pipe(z.nullish(z.number()), z.transform((v) => v ?? fallback));

/** Where the check of a gap stands (core/src/inbox/gaps.rs `GapState`). */
export const GAP_STATES = ['waiting', 'checking', 'asked', 'checked'] as const;
export type GapState = (typeof GAP_STATES)[number];

/**
 * A connection's last outage long enough to be checked (two minutes or more), not dismissed yet
 * (core/src/inbox/gaps.rs `ConnectionGap`): messages may be missing between `from` and `to`.
 */
export const connectionGapSchema = z.object({
  id: z.number(),
  /** RFC 3339: when the outage began. */
  from: z.string(),
  /** RFC 3339: when the connection was back. */
  to: z.string(),
  /** `waiting` for the channel's queue, `checking`, `asked` (waiting for the phone's answers until `answerBy`) or `checked`; a state this version does not know reads as `checking`. */
  state: z.catch(z.enum(GAP_STATES), 'checking'),
  /** Conversations whose messages in the gap were asked from the phone. */
  fetched: z.catch(z.number(), 0),
  /** Conversations that got the "messages may be missing" notice. */
  noted: z.catch(z.number(), 0),
  /** RFC 3339, while `asked`: when the conversations the phone has not answered for get the notice. */
  answerBy: z.catch(z.nullish(z.string()), null),
});
export type ConnectionGap = z.infer<typeof connectionGapSchema>;

/** A connection, `whatsapp` on the wire (core/src/inbox/model.rs `Connection`). */
export const connectionSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  number: text,
  channel: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? 'whatsapp')),
  provider: z.nullish(z.string()),
  status: z.catch(z.enum(CONNECTION_STATUSES), 'DISCONNECTED'),
  qrcode: text,
  retries: int(0),
  isDefault: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  token: text,
  greetingMessage: text,
  complationMessage: text,
  outOfHoursMessage: text,
  ratingMessage: text,
  allowGroup: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  groupAsTicket: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  maxUseBotQueues: int(3),
  timeUseBotQueues: int(0),
  timeSendQueue: int(0),
  sendIdQueue: z.nullish(z.number()),
  expiresTicket: int(0),
  expiresInactiveMessage: text,
  timeCreateNewTicket: int(0),
  maxUseBotQueuesNPS: int(3),
  expiresTicketNPS: int(0),
  /** Flow started on a new conversation, or null. */
  flowIdWelcome: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  /** Flow started when no phrase campaign matches, or null. */
  flowIdNotPhrase: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  /** Collective vacation, `YYYY-MM-DD` both or neither. */
  collectiveVacationStart: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? null)),
  collectiveVacationEnd: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? null)),
  collectiveVacationMessage: text,
  /** The connection's hours (read when `scheduleType` is `connection`); empty when never set. */
  schedules: z.pipe(z.nullish(z.array(scheduleRowSchema)), z.transform((v) => v ?? [])),
  timeInactiveMessage: int(0),
  inactiveMessage: text,
  whenExpiresTicket: int(0),
  queueIds: z.nullish(z.array(z.number())),
  queues: z.nullish(z.array(z.object({ id: z.number(), name: z.string(), color: z.nullish(z.string()) }))),
  updatedAt: z.nullish(z.string()),
  /** The code to type on the phone while linking by phone number (status PAIRING); admins only. */
  pairingCode: z.pipe(z.nullish(z.string()), z.transform((v) => v || null)),
  /** Why the session is in its state, when the status alone does not say. */
  sessionReason: z.pipe(sessionReasonSchema, z.transform((v) => v ?? null)),
  /** When what `sessionReason` names ends (a temporary ban). */
  sessionUntil: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? null)),
  /** Import the phone's chat history when the connection is linked (spec 2 "Old-message import"). */
  enableImportMessage: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  /** ISO 8601: import messages from this moment... */
  importOldMessages: z.pipe(z.nullish(z.string()), z.transform((v) => v || null)),
  /** ...up to this one. */
  importRecentMessages: z.pipe(z.nullish(z.string()), z.transform((v) => v || null)),
  /** Group chats are imported too. */
  importOldMessagesGroups: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  /** The imported tickets are closed when the import ends. */
  closedTicketsPostImported: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  /** The queue the imported tickets go to. */
  queueIdImportMessages: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  /**
   * Read-only: null (no import), an ISO 8601 timestamp (the last history chunk arrived then: the
   * import is preparing), `Running` (messages being written) or `renderButtonCloseTickets`
   * (finished, the imported tickets are still open).
   */
  statusImportMessages: z.pipe(z.nullish(z.string()), z.transform((v) => v || null)),
  /**
   * RFC 3339: when the connection went down (or went deaf), while it is not back; null while
   * connected. Absent from a server without gaps, and then left as it was on a merge.
   */
  downSince: z.nullish(z.string()),
  /** The last gap not dismissed (`DELETE /whatsapp/{id}/gap`), or null; one this version cannot read is none. */
  lastGap: z.catch(z.nullish(connectionGapSchema), null),
});
export type Connection = z.infer<typeof connectionSchema>;

/** Ids of a connection's queues, from either wire form. */
export function connectionQueueIds(connection: Pick<Connection, 'queueIds' | 'queues'>): number[] {
  return connection.queueIds ?? connection.queues?.map((q) => q.id) ?? [];
}

/** A pair code as WhatsApp shows it: `XXXX-XXXX`. */
export function formatPairCode(code: string): string {
  const plain = code.replace(/[-\s]/g, '').toUpperCase();
  return plain.length === 8 ? `${plain.slice(0, 4)}-${plain.slice(4)}` : plain;
}

/** dd/MM/yy HH:mm (spec 1 §9, dates in tables). */
export function formatTableDate(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getDate())}/${two(date.getMonth() + 1)}/${two(date.getFullYear() % 100)} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** `statusImportMessages` while messages are being written. */
export const IMPORT_RUNNING = 'Running';
/** `statusImportMessages` once the import ended with its tickets still open. */
export const IMPORT_CLOSE_TICKETS = 'renderButtonCloseTickets';
/** How long after the last history chunk the import shows as preparing (spec 2: 35 seconds). */
export const IMPORT_PREPARING_WINDOW_MS = 35_000;

/**
 * Until when the connection shows "preparing the import": `statusImportMessages` holds the time
 * the last history chunk arrived, and old-message import is on. Null when it does not.
 */
export function importPreparingUntil(connection: Pick<Connection, 'enableImportMessage' | 'statusImportMessages'>): number | null {
  const status = connection.statusImportMessages;
  if (!connection.enableImportMessage || !status || status === IMPORT_RUNNING || status === IMPORT_CLOSE_TICKETS) return null;
  const at = Date.parse(status);
  return Number.isNaN(at) ? null : at + IMPORT_PREPARING_WINDOW_MS;
}
