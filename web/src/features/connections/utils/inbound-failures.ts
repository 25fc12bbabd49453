/** A kept inbound event, summed up for the inbound failures list. */
import type { TFunction } from 'i18next';
import type { InboundEvent } from '../api/inbound-failures';

/** Kinds of kept events the list names (core/src/inbox/channel.rs `InboundEvent`). */
const EVENT_KINDS = ['message', 'ack', 'edit', 'delete', 'reaction', 'missedCall', 'incomingCall', 'identities', 'session'] as const;
type EventKind = (typeof EVENT_KINDS)[number];
const SUMMARY_LENGTH = 80;

function isKind(type: string): type is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(type);
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_LENGTH ? `${flat.slice(0, SUMMARY_LENGTH - 1)}…` : flat;
}

/** Who sent it: the name and the number (a chat id without its `@...` domain). */
function sender(event: InboundEvent): string {
  const number = (event.chat ?? '').split('@')[0];
  const name = (event.chatName ?? '').trim();
  if (name && number && name !== number) return `${name} (${number})`;
  return name || number;
}

/** A short line about the kept event: sender and text (or file) for a message, the kind otherwise. */
export function eventSummary(event: InboundEvent, t: TFunction): string {
  const kind = isKind(event.type) ? t(`connections.inboundFailures.kinds.${event.type}`) : event.type;
  if (event.type === 'message') {
    const content = event.media?.fileName || event.body || '';
    return t('connections.inboundFailures.messageSummary', { sender: sender(event), text: shorten(content) });
  }
  const from = sender(event);
  return from ? `${kind} · ${from}` : kind;
}
