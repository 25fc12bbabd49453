import { describe, expect, it } from 'vitest';
import { splitToFit } from '../../lib/layout/overflow';
import { ACTION_WIDTH, actionsRoom, byPriority, drawerOverlays } from './layout';

const OPEN_TICKET = ['return', 'resolve', 'transfer', 'integration', 'delete', 'meeting', 'schedule', 'pdf', 'log'].map((key) => ({ key }));
const keys = (items: { key: string }[]) => items.map((item) => item.key);

/** The header's split at a pane width (its 8 px padding each side). */
const headerAt = (paneWidth: number) => splitToFit(byPriority(OPEN_TICKET), actionsRoom(paneWidth - 16), ACTION_WIDTH);

describe('ticket header', () => {
  it('orders the actions most used first', () => {
    expect(keys(byPriority(OPEN_TICKET))).toEqual(['resolve', 'transfer', 'return', 'meeting', 'schedule', 'pdf', 'log', 'integration', 'delete']);
    expect(keys(byPriority([{ key: 'log' }, { key: 'accept' }, { key: 'ignore' }]))).toEqual(['accept', 'ignore', 'log']);
  });

  it('keeps the contact its room and puts what does not fit in the menu', () => {
    // 1920×1080 with the side menu and the default panel: everything fits.
    expect(headerAt(1056).overflow).toEqual([]);
    // 1366×768: the contact keeps 160 px; the rarest actions go to the menu.
    const laptop = headerAt(502);
    expect(keys(laptop.inline)).toEqual(['resolve', 'transfer', 'return', 'meeting', 'schedule']);
    expect(keys(laptop.overflow)).toEqual(['pdf', 'log', 'integration', 'delete']);
    // A 390 px phone.
    expect(keys(headerAt(390).inline)).toEqual(['resolve', 'transfer']);
    for (const width of [300, 390, 502, 700, 1056]) {
      const { inline, overflow } = headerAt(width);
      expect(inline.length + overflow.length).toBe(OPEN_TICKET.length);
      // What is shown, the back button, the gaps and the "more" button leave the contact 160 px.
      const used = 16 + ACTION_WIDTH + 16 + (inline.length + (overflow.length ? 1 : 0)) * ACTION_WIDTH;
      expect(width - used).toBeGreaterThanOrEqual(160);
    }
  });

  it('shows every action until the header is measured', () => {
    expect(actionsRoom(null)).toBeNull();
    expect(splitToFit(OPEN_TICKET, actionsRoom(null), ACTION_WIDTH).overflow).toEqual([]);
  });
});

describe('contact drawer', () => {
  it('lies beside the conversation when both have room, else over it', () => {
    expect(drawerOverlays(false, 1056, 320)).toBe(false);
    expect(drawerOverlays(false, 502, 320)).toBe(true);
    expect(drawerOverlays(true, 1056, 320)).toBe(true);
    expect(drawerOverlays(false, null, 320)).toBe(false);
  });
});
