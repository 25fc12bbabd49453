/** Conversation display helpers. */
import type { TFunction } from 'i18next';

/** The reactions offered on a message. */
export const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:mm of a timestamp, local time. */
export function timeOf(value: string): string {
  const date = new Date(value);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** dd/MM/yyyy of a timestamp, local time: the list's date separators. */
export function dayOf(value: string): string {
  const d = new Date(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;
}

/** A gap notice's interval (`mediaType` `gap`: the body is `{from}/{to}`, two RFC 3339 times), or null when the body is not one. */
export function gapInterval(body: string): { from: string; to: string } | null {
  const parts = body.trim().split('/');
  if (parts.length !== 2) return null;
  const [from, to] = parts;
  if (Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) return null;
  return { from, to };
}

/**
 * A gap's ends as the conversation shows them, in local time: `dd/MM/yyyy HH:mm`, the end's date
 * left out when it is the start's day.
 */
export function gapEnds(interval: { from: string; to: string }): { from: string; to: string } {
  const from = `${dayOf(interval.from)} ${timeOf(interval.from)}`;
  const sameDay = dayOf(interval.to) === dayOf(interval.from);
  return { from, to: sameDay ? timeOf(interval.to) : `${dayOf(interval.to)} ${timeOf(interval.to)}` };
}

/** What a gap notice says in the reader's language: the connection was down between its ends. */
export function gapNoticeText(body: string, t: TFunction): string {
  const interval = gapInterval(body);
  return interval ? t('messages.gap', gapEnds(interval)) : t('messages.gapUnknown');
}

export type AckState = 'clock' | 'sent' | 'delivered' | 'read' | 'played';

/** Spec 1 "Ticket view": 0 clock, 1 sent, 2 delivered, 3 and 4 read (audio: played), 5 read. */
export function ackState(ack: number, mediaType: string): AckState {
  if (ack <= 0) return 'clock';
  if (ack === 1) return 'sent';
  if (ack === 2) return 'delivered';
  if (ack <= 4) return mediaType === 'audio' ? 'played' : 'read';
  return 'read';
}

/** Audio playback speeds, cycled by the speed button (spec 1 "Ticket view"). */
export const PLAYBACK_RATES = [0.5, 1, 1.5, 2] as const;
export const PLAYBACK_RATE_KEY = 'audioPlaybackRate';

/** The speed after `rate` (an unknown speed goes back to the first). */
export function nextPlaybackRate(rate: number): number {
  const index = (PLAYBACK_RATES as readonly number[]).indexOf(rate);
  return PLAYBACK_RATES[(index + 1) % PLAYBACK_RATES.length];
}

/** The stored speed, 1 when none (or an unknown one) is stored. */
export function storedPlaybackRate(): number {
  try {
    const value = Number(localStorage.getItem(PLAYBACK_RATE_KEY));
    return (PLAYBACK_RATES as readonly number[]).includes(value) ? value : 1;
  } catch {
    return 1;
  }
}

export function storePlaybackRate(rate: number): void {
  try {
    localStorage.setItem(PLAYBACK_RATE_KEY, String(rate));
  } catch {
    // storage unavailable: the speed lasts for this page only
  }
}
