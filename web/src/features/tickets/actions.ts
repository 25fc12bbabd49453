import type { Ticket } from './types';

export type ItemAction = 'accept' | 'ignore' | 'return' | 'resolve' | 'reopen';

/** The actions an item offers for its status (spec 1 §4). */
export function itemActions(ticket: Ticket, canClosePending: boolean): ItemAction[] {
  switch (ticket.status) {
    case 'pending':
      return canClosePending ? ['accept', 'ignore'] : ['accept'];
    case 'lgpd':
      return canClosePending ? ['ignore'] : [];
    case 'open':
    case 'group':
      return ['return', 'resolve'];
    case 'closed':
      return ['reopen'];
    default:
      return [];
  }
}

