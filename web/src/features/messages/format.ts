/** Conversation display helpers. */

/** The reactions offered on a message. */
export const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

/** The input's emoji menu. */
export const EMOJIS = ['😀', '😂', '😊', '😍', '😉', '😎', '🤔', '😢', '😡', '👍', '👎', '👏', '🙏', '🙌', '💪', '🎉', '❤️', '🔥', '✅', '❌', '⚠️', '📞', '📎', '⏰'] as const;

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
