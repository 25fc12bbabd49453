/**
 * The ticket view's layout rules (docs/inbox.md "Layout"): the phone breakpoint, the room the
 * header keeps for the contact, the order in which its actions give way to the "more" menu, and
 * when the contact drawer lies over the conversation instead of beside it.
 */
import type { ElementType } from 'react';

/** Spec 1 §9: below this width the page shows a tab view of the list and the ticket. */
export const MOBILE_QUERY = '(max-width:766.95px)';

/** An icon button (24 px icon, 8 px padding each side). */
export const ACTION_WIDTH = 40;
/** The gap between the header's back button, contact and actions. */
export const HEADER_GAP = 8;
/** The contact's avatar and at least the start of the name: never covered by actions. */
export const NAME_MIN_WIDTH = 160;
/** Below this the conversation beside the contact drawer is too narrow: the drawer lies over it. */
export const CONVERSATION_MIN_WIDTH = 440;

export interface HeaderAction {
  /** The test id is `ticket-header-<key>`, in the header and in the menu alike. */
  key: string;
  label: string;
  icon: ElementType;
  run: () => void;
  disabled?: boolean;
}

/** Most used first: what the header keeps when space is short; the rest goes to the menu in this order. */
export const ACTION_PRIORITY = ['accept', 'reopen', 'resolve', 'transfer', 'return', 'ignore', 'meeting', 'schedule', 'pdf', 'log', 'integration', 'delete'];

export function byPriority<T extends { key: string }>(actions: readonly T[]): T[] {
  const rank = (key: string) => {
    const index = ACTION_PRIORITY.indexOf(key);
    return index < 0 ? ACTION_PRIORITY.length : index;
  };
  return [...actions].sort((a, b) => rank(a.key) - rank(b.key));
}

/**
 * The room for the actions in a header `headerWidth` px wide (its content box): what the back
 * button, the gaps and the contact's minimum leave. `null` while unmeasured.
 */
export function actionsRoom(headerWidth: number | null): number | null {
  if (headerWidth === null) return null;
  return Math.max(0, headerWidth - ACTION_WIDTH - 2 * HEADER_GAP - NAME_MIN_WIDTH);
}

/** Whether the contact drawer lies over the conversation: on phones, and when beside it the conversation would be too narrow. */
export function drawerOverlays(phone: boolean, viewWidth: number | null, drawerWidth: number): boolean {
  return phone || (viewWidth !== null && viewWidth - drawerWidth < CONVERSATION_MIN_WIDTH);
}
