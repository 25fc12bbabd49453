/**
 * The typed calls of `./rules` over the bound WASM module: JSON in, JSON out, nothing decided
 * here. Loaded with the module (after the first render), not with the first page.
 */
import type { FieldError, FlowLimits, InboxControls, Rules, ScheduleLimits, SessionUser, Strength } from './rules';

type Glue = typeof import('../../wasm-pkg/chatflow_wasm.js');

/** A call the module refused (an unreadable value). */
export class RulesError extends Error {}

function read<T>(json: string): T {
  const value = JSON.parse(json) as T | { error: string };
  if (value && typeof value === 'object' && 'error' in value && typeof value.error === 'string') throw new RulesError(value.error);
  return value as T;
}

function userJson(user: SessionUser): string {
  return JSON.stringify({ ...user, queueIds: user.queues ? user.queues.map((q) => q.id) : (user.queueIds ?? []) });
}

export function bind(glue: Glue): Rules {
  let limits: FlowLimits | null = null;
  let scheduleLimits: ScheduleLimits | null = null;
  return {
    checkForm: (values) => read<{ fields: FieldError[] }>(glue.checkForm(JSON.stringify(values))).fields,
    passwordStrength: (password) => read<Strength>(glue.passwordStrength(password)),
    isValidEmail: (email) => read<{ valid: boolean }>(glue.isValidEmail(email)).valid,
    belongsToList: (user, list, ticket) => {
      const listJson = JSON.stringify({
        tab: list.tab,
        showAll: list.showAll,
        queueIds: list.queueIds,
        tagIds: list.tagIds,
        userIds: list.userIds,
        whatsappIds: list.whatsappIds,
      });
      const ticketJson = JSON.stringify({
        companyId: ticket.companyId ?? null,
        status: ticket.status,
        userId: ticket.userId ?? null,
        queueId: ticket.queueId ?? null,
        whatsappId: ticket.whatsappId ?? null,
        isGroup: ticket.isGroup,
        unreadMessages: ticket.unreadMessages,
        tagIds: ticket.tags.map((tag) => tag.id),
      });
      return read<{ belongs: boolean }>(glue.belongsToList(userJson(user), listJson, ticketJson)).belongs;
    },
    inboxControls: (user) => read<InboxControls>(glue.inboxControls(userJson(user))),
    flowLimits: () => (limits ??= read<FlowLimits>(glue.flowLimits())),
    scheduleLimits: () => (scheduleLimits ??= read<ScheduleLimits>(glue.scheduleLimits())),
  };
}

