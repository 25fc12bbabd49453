/**
 * How the conversation pane scrolls (docs/inbox.md "The conversation pane"): it opens at the
 * newest message; a message that arrives while the reader is at the bottom (or that the reader
 * sent) is followed; one that arrives while the reader is scrolled up is counted for the
 * "new messages" marker and the view does not move; an older page that comes in above keeps the
 * message the reader sees in its place.
 */

/** Loads the older page when scrolled within this many px of the top (spec 1 §9). */
export const TOP_THRESHOLD = 50;
/** Within this many px of the bottom the reader is at the newest message. */
export const BOTTOM_THRESHOLD = 80;

export interface ScrollBox {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

export function isAtBottom(box: ScrollBox, threshold = BOTTOM_THRESHOLD): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= threshold;
}

/**
 * Whether to ask for the older page: near the top, or when the messages do not fill the pane
 * (there is nothing to scroll, so no scroll would ever ask).
 */
export function shouldLoadOlder(box: ScrollBox, page: { hasMore: boolean; loading: boolean }, threshold = TOP_THRESHOLD): boolean {
  if (!page.hasMore || page.loading) return false;
  // A pane of no height is not laid out (hidden, or jsdom): it cannot tell.
  return box.scrollTop < threshold || (box.clientHeight > 0 && box.scrollHeight <= box.clientHeight);
}

/** The ends of the loaded messages at the last layout. */
export interface ListEnds {
  firstId: number | null;
  lastId: number | null;
}

export interface ListChange {
  /** `bottom`: show the newest message; `anchor`: keep the message at the top of the view in place; `none`: leave the scroll alone. */
  move: 'bottom' | 'anchor' | 'none';
  /** Messages that arrived below a reader who is scrolled up (for the marker). */
  arrived: number;
}

/**
 * What the pane does when its messages change from `before` to `messages` (oldest first), the
 * reader being at the bottom or not; `userId` is the reader (their own sends are always followed).
 */
export function listChange(
  before: ListEnds,
  messages: readonly { id: number; fromMe: boolean; userId?: number | null }[],
  atBottom: boolean,
  userId: number,
): ListChange {
  const first = messages[0];
  const last = messages[messages.length - 1];
  if (!first || !last) return { move: 'none', arrived: 0 };
  if (before.lastId === null) return { move: 'bottom', arrived: 0 };
  const olderCame = first.id !== before.firstId;
  if (last.id !== before.lastId) {
    const index = messages.findIndex((m) => m.id === before.lastId);
    const newer = index >= 0 ? messages.slice(index + 1) : [];
    if (atBottom || newer.some((m) => m.fromMe && m.userId === userId)) return { move: 'bottom', arrived: 0 };
    return { move: olderCame ? 'anchor' : 'none', arrived: newer.length };
  }
  return { move: olderCame ? 'anchor' : 'none', arrived: 0 };
}
