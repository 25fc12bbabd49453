import { describe, expect, it } from 'vitest';
import { isAtBottom, listChange, shouldLoadOlder } from './scroll';

const ME = 1;
const contact = (id: number) => ({ id, fromMe: false, userId: null });
const mine = (id: number) => ({ id, fromMe: true, userId: ME });
const colleague = (id: number) => ({ id, fromMe: true, userId: 2 });
const ends = (firstId: number | null, lastId: number | null) => ({ firstId, lastId });

describe('isAtBottom', () => {
  it('is within 80 px of the end', () => {
    expect(isAtBottom({ scrollTop: 920, scrollHeight: 1500, clientHeight: 500 })).toBe(true);
    expect(isAtBottom({ scrollTop: 1000, scrollHeight: 1500, clientHeight: 500 })).toBe(true);
    expect(isAtBottom({ scrollTop: 919, scrollHeight: 1500, clientHeight: 500 })).toBe(false);
  });
});

describe('shouldLoadOlder', () => {
  const more = { hasMore: true, loading: false };
  it('asks within 50 px of the top (spec 1 §9)', () => {
    expect(shouldLoadOlder({ scrollTop: 49, scrollHeight: 2000, clientHeight: 500 }, more)).toBe(true);
    expect(shouldLoadOlder({ scrollTop: 50, scrollHeight: 2000, clientHeight: 500 }, more)).toBe(false);
  });

  it('asks when the messages do not fill the pane, there being nothing to scroll', () => {
    expect(shouldLoadOlder({ scrollTop: 0, scrollHeight: 400, clientHeight: 500 }, more)).toBe(true);
    expect(shouldLoadOlder({ scrollTop: 300, scrollHeight: 500, clientHeight: 500 }, more)).toBe(true);
  });

  it('does not ask for what is not there, nor twice', () => {
    expect(shouldLoadOlder({ scrollTop: 0, scrollHeight: 2000, clientHeight: 500 }, { hasMore: false, loading: false })).toBe(false);
    expect(shouldLoadOlder({ scrollTop: 0, scrollHeight: 2000, clientHeight: 500 }, { hasMore: true, loading: true })).toBe(false);
  });

  it('does not take a pane that is not laid out for an empty one', () => {
    expect(shouldLoadOlder({ scrollTop: 200, scrollHeight: 0, clientHeight: 0 }, more)).toBe(false);
  });
});

describe('listChange', () => {
  it('opens at the newest message', () => {
    expect(listChange(ends(null, null), [contact(1), contact(2)], false, ME)).toEqual({ move: 'bottom', arrived: 0 });
  });

  it('does nothing without messages or without a change', () => {
    expect(listChange(ends(null, null), [], true, ME)).toEqual({ move: 'none', arrived: 0 });
    expect(listChange(ends(1, 2), [contact(1), contact(2)], false, ME)).toEqual({ move: 'none', arrived: 0 });
  });

  it('follows a new message when the reader is at the bottom', () => {
    expect(listChange(ends(1, 2), [contact(1), contact(2), contact(3)], true, ME)).toEqual({ move: 'bottom', arrived: 0 });
  });

  it('does not move a reader who scrolled up, and counts what arrived', () => {
    expect(listChange(ends(1, 2), [contact(1), contact(2), contact(3), colleague(4)], false, ME)).toEqual({ move: 'none', arrived: 2 });
  });

  it("always shows the reader's own message", () => {
    expect(listChange(ends(1, 2), [contact(1), contact(2), mine(3)], false, ME)).toEqual({ move: 'bottom', arrived: 0 });
  });

  it('keeps the view in place when an older page comes in above', () => {
    expect(listChange(ends(5, 9), [contact(3), contact(4), contact(5), contact(9)], false, ME)).toEqual({ move: 'anchor', arrived: 0 });
    expect(listChange(ends(5, 9), [contact(3), contact(5), contact(9)], true, ME)).toEqual({ move: 'anchor', arrived: 0 });
    // Both at once, scrolled up: the view stays and the new one is counted.
    expect(listChange(ends(5, 9), [contact(3), contact(5), contact(9), contact(10)], false, ME)).toEqual({ move: 'anchor', arrived: 1 });
  });
});
