/**
 * Toolbars that keep what fits and put the rest in a "more" menu (the ticket header's actions,
 * the message input's tools): which items stay, in their order of priority, for the room there is.
 */

export interface FitSplit<T> {
  /** Shown in the toolbar. */
  inline: T[];
  /** In the "more" menu (empty: no menu). */
  overflow: T[];
}

/**
 * Splits `items` (most important first) for `available` px, each item `itemWidth` px wide and the
 * "more" button `moreWidth`. Everything stays when it all fits without the button, or when the
 * room is unknown (`null`: not measured yet, or nothing is laid out).
 */
export function splitToFit<T>(items: readonly T[], available: number | null, itemWidth: number, moreWidth: number = itemWidth): FitSplit<T> {
  if (available === null || items.length * itemWidth <= available) return { inline: [...items], overflow: [] };
  const count = Math.max(0, Math.floor((available - moreWidth) / itemWidth));
  return { inline: items.slice(0, count), overflow: items.slice(count) };
}
