import { describe, expect, it } from 'vitest';
import { splitToFit } from './overflow';

const items = ['a', 'b', 'c', 'd', 'e'];

describe('splitToFit', () => {
  it('keeps everything when it all fits, without a "more" button', () => {
    expect(splitToFit(items, 200, 40)).toEqual({ inline: items, overflow: [] });
    expect(splitToFit(items, 1000, 40)).toEqual({ inline: items, overflow: [] });
  });

  it('keeps everything while the room is unknown', () => {
    expect(splitToFit(items, null, 40)).toEqual({ inline: items, overflow: [] });
  });

  it('keeps the first items and leaves room for the "more" button', () => {
    // 199 px: not all five (200); with the button (40) four do not fit either (160 + 40 = 200).
    expect(splitToFit(items, 199, 40)).toEqual({ inline: ['a', 'b', 'c'], overflow: ['d', 'e'] });
    expect(splitToFit(items, 120, 40)).toEqual({ inline: ['a', 'b'], overflow: ['c', 'd', 'e'] });
    expect(splitToFit(items, 120, 40, 48)).toEqual({ inline: ['a'], overflow: ['b', 'c', 'd', 'e'] });
  });

  it('puts everything in the menu when there is only room for the button', () => {
    expect(splitToFit(items, 40, 40)).toEqual({ inline: [], overflow: items });
    expect(splitToFit(items, 0, 40)).toEqual({ inline: [], overflow: items });
  });
});
