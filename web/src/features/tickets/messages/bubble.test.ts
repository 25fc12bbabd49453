import { getContrastRatio } from '@mui/material/styles';
import { describe, expect, it } from 'vitest';
import { bubbleColors, type BubbleKind } from './bubble';

const kinds: BubbleKind[] = ['contact', 'own', 'private'];

describe('bubble colours', () => {
  it.each(['light', 'dark'] as const)('read on every bubble in the %s theme (WCAG AA)', (mode) => {
    for (const kind of kinds) {
      const colors = bubbleColors(mode, kind);
      expect(getContrastRatio(colors.text, colors.background), `${mode} ${kind} text`).toBeGreaterThanOrEqual(4.5);
      // The time and the "edited" mark are small: AA for normal text.
      expect(getContrastRatio(colors.meta, colors.background), `${mode} ${kind} time`).toBeGreaterThanOrEqual(4.5);
      expect(getContrastRatio(colors.accent, colors.background), `${mode} ${kind} accent`).toBeGreaterThanOrEqual(3);
    }
  });

  it('follows the theme: dark bubbles in the dark theme, light ones in the light theme', () => {
    for (const kind of kinds) {
      // The dark theme's text (white) reads on its bubbles; the light theme's (black) on its own.
      expect(getContrastRatio(bubbleColors('dark', kind).background, '#ffffff'), kind).toBeGreaterThanOrEqual(4.5);
      expect(getContrastRatio(bubbleColors('light', kind).background, '#000000'), kind).toBeGreaterThanOrEqual(4.5);
    }
  });
});
