/** Inbox display rules (spec 1 §9). */

export const NAME_MAX = 60;
export const LAST_MESSAGE_MAX = 40;

/** Cuts `text` to `max` characters, marking the cut with "...". */
export function truncate(text: string | null | undefined, max: number): string {
  const value = text ?? '';
  return value.length > max ? `${value.slice(0, max)}...` : value;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:mm when `value` is today (local time), else dd/MM/yyyy. */
export function formatTicketTime(value: string, now: Date = new Date()): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const sameDay = date.getFullYear() === now.getFullYear() && date.getMonth() === now.getMonth() && date.getDate() === now.getDate();
  if (sameDay) return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return `${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${date.getFullYear()}`;
}

/** Clamps a panel width to 404..700 px. */
export const PANEL_MIN = 404;
export const PANEL_MAX = 700;
export const PANEL_DEFAULT = 550;
export function clampWidth(width: number): number {
  return Math.min(PANEL_MAX, Math.max(PANEL_MIN, Math.round(width)));
}
