import { describe, expect, it } from 'vitest';
import { splitToFit } from '../../../lib/layout/overflow';
import { INPUT_TOOLS, TEXT_MIN_WIDTH, TOOL_WIDTH, toolsRoom } from './layout';

const toolsAt = (width: number | null) => splitToFit(INPUT_TOOLS, toolsRoom(width), TOOL_WIDTH);

describe('message input tools', () => {
  it('keeps every tool where there is room', () => {
    expect(toolsAt(1056)).toEqual({ inline: [...INPUT_TOOLS], overflow: [] });
    expect(toolsAt(null)).toEqual({ inline: [...INPUT_TOOLS], overflow: [] });
  });

  it('gives way to the menu, last first, and the text field keeps its minimum', () => {
    expect(toolsAt(502)).toEqual({ inline: ['attach', 'camera'], overflow: ['private', 'sign', 'send-contact'] });
    expect(toolsAt(390)).toEqual({ inline: [], overflow: [...INPUT_TOOLS] });
    // The narrowest phones: everything in the menu, the text field takes what is left.
    expect(toolsAt(320)).toEqual({ inline: [], overflow: [...INPUT_TOOLS] });
    for (const width of [390, 502, 640, 800]) {
      const { inline, overflow } = toolsAt(width);
      const buttons = 2 + inline.length + (overflow.length ? 1 : 0);
      expect(width - 16 - buttons * TOOL_WIDTH).toBeGreaterThanOrEqual(TEXT_MIN_WIDTH);
    }
  });
});
