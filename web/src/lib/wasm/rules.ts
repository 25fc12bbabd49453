/**
 * The core's rules the web app asks, compiled to WebAssembly (crate `web/wasm`, built by
 * `cargo xtask wasm` into `src/wasm-pkg`): form validation, password strength, whether a ticket
 * belongs in an inbox list, the inbox's controls, the flow limits and the schedule limits. The browser runs exactly the
 * functions the server runs (`chatflow_core::validation`, `chatflow_core::inbox::membership`,
 * `chatflow_core::flow::flow_limits`, `chatflow_core::schedule::schedule_limits`); nothing here decides anything, it only converts values.
 *
 * Loaded lazily: the module (glue, `.wasm` and the converting code of `./bind`) is fetched after the
 * first render and is never part of the inbox's first-load JavaScript. Code that needs an answer before it is ready waits for it
 * (`withRules` queues in order, `loadRules` is a promise) or shows nothing yet (`useRules`).
 */

// The values the rules take and return are the core's own types, generated from their Rust
// definitions by `cargo xtask types` (`src/lib/core-types/generated.ts`); types only, erased.
import type { FieldError, FlowLimits, FormValues, InboxControls, ScheduleLimits, Strength as CoreStrength, TicketTab } from '../core-types/generated';
export type { FieldCode, FieldError, FlowLimits, FormValues, InboxControls, ScheduleLimits, StrengthLabel } from '../core-types/generated';

/** A password's strength; `warn`: the login page asks before signing in (`needs_strength_warning`). */
export type Strength = CoreStrength & { warn: boolean };

/** An inbox tab (`chatflow_core::inbox::model::TicketTab`). */
export type InboxTab = TicketTab;

/** The signed-in user as the session holds them (the flags and queues are what the rules read). */
export interface SessionUser {
  id: number;
  companyId: number;
  profile: 'admin' | 'user';
  super?: boolean;
  allTicket: string;
  allowGroup: boolean;
  allHistoric: string;
  allUserChat: string;
  userClosePendingTicket: string;
  showDashboard: string;
  allowRealTime: string;
  allowConnections: string;
  queues?: readonly { id: number }[] | null;
  queueIds?: readonly number[] | null;
}

/** What membership reads of a list's parameters. */
export interface ListFacts {
  tab: InboxTab;
  showAll: boolean;
  queueIds: readonly number[];
  tagIds: readonly number[];
  userIds: readonly number[];
  whatsappIds: readonly number[];
}

/** What membership reads of a ticket as the API sends it. */
export interface TicketFacts {
  companyId?: number | null;
  status: string;
  userId?: number | null;
  queueId?: number | null;
  whatsappId?: number | null;
  isGroup: boolean;
  unreadMessages: number;
  tags: readonly { id: number }[];
}

export interface Rules {
  /** Every failing field of a form (empty when it may be sent). */
  checkForm(values: FormValues): FieldError[];
  passwordStrength(password: string): Strength;
  isValidEmail(email: string): boolean;
  /** Whether `ticket` belongs in the list `list` of `user` (what a refetch would answer). */
  belongsToList(user: SessionUser, list: ListFacts, ticket: TicketFacts): boolean;
  inboxControls(user: SessionUser): InboxControls;
  flowLimits(): FlowLimits;
  scheduleLimits(): ScheduleLimits;
}

let rules: Rules | null = null;
let loading: Promise<Rules> | null = null;
const listeners = new Set<() => void>();
const waiting: { apply: (rules: Rules) => void; unavailable: () => void }[] = [];

function ready(bound: Rules): Rules {
  rules = bound;
  for (const listener of listeners) listener();
  return bound;
}

/** Loads the module once (the glue script, then the `.wasm` file next to it). */
export function loadRules(): Promise<Rules> {
  if (rules) return Promise.resolve(rules);
  loading ??= Promise.all([import('../../wasm-pkg/chatflow_wasm.js'), import('./bind')])
    .then(async ([glue, { bind }]) => {
      await glue.default();
      return ready(bind(glue));
    })
    .catch((error: unknown) => {
      loading = null;
      throw error;
    });
  return loading;
}

/** Loads the module from bytes already at hand (tests read the file from disk). */
export async function loadRulesFromBytes(bytes: BufferSource): Promise<Rules> {
  const [glue, { bind }] = await Promise.all([import('../../wasm-pkg/chatflow_wasm.js'), import('./bind')]);
  glue.initSync({ module: bytes });
  return ready(bind(glue));
}

/** The rules once loaded, else `null`. */
export function currentRules(): Rules | null {
  return rules;
}

/** Calls `listener` when the rules become ready; returns the unsubscribe. */
export function onRulesReady(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Runs `apply` with the rules: at once when they are loaded, else when they are, in the order the
 * calls came (realtime events wait for the module instead of being judged without it). When the
 * module fails to load, each waiting call's `unavailable` runs instead, in order (the inbox refetches
 * what the event would have changed, so nothing is lost), and the next call tries loading again.
 */
export function withRules(apply: (rules: Rules) => void, unavailable: () => void): void {
  if (rules && waiting.length === 0) {
    apply(rules);
    return;
  }
  waiting.push({ apply, unavailable });
  if (waiting.length > 1) return;
  loadRules().then(
    (loaded) => {
      for (const queued of waiting.splice(0)) queued.apply(loaded);
    },
    (error: unknown) => {
      console.error('the rules module did not load', error);
      for (const queued of waiting.splice(0)) queued.unavailable();
    },
  );
}
