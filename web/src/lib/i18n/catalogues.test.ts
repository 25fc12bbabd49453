import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FIELD_CODES } from '../api/errors';
import ptFirstLoad from './locales/pt';
import connectionsPt from '../../features/connections/locales/pt';
import queuesPt from '../../features/queues/locales/pt';
import flowsPt from '../../features/flows/locales/pt';
import settingsPt from './locales/pt-settings';
import usersPt from './locales/pt-users';
import signupPt from './locales/pt-signup';
import en from './locales/en';
import es from './locales/es';
import tr from './locales/tr';

// The whole Portuguese catalogue: the first load's part and those loaded with their pages.
const pt = { ...ptFirstLoad, ...connectionsPt, ...queuesPt, ...flowsPt, ...settingsPt, ...usersPt, ...signupPt };
const catalogues = { pt, en, es, tr } as const;

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keys(child, prefix ? `${prefix}.${key}` : key));
}

function leaves(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [value];
  return Object.values(value).flatMap(leaves);
}

describe('translation catalogues', () => {
  const reference = keys(catalogues.pt).sort();

  it.each(['en', 'es', 'tr'] as const)('%s has exactly the keys of pt', (language) => {
    expect(keys(catalogues[language]).sort()).toEqual(reference);
  });

  it.each(['pt', 'en', 'es', 'tr'] as const)('%s has no empty or non-string text', (language) => {
    for (const leaf of leaves(catalogues[language])) {
      expect(typeof leaf).toBe('string');
      expect((leaf as string).trim()).not.toBe('');
    }
  });

  it.each(['pt', 'en', 'es', 'tr'] as const)('%s keeps the interpolation variables of pt', (language) => {
    const vars = (text: string) => [...text.matchAll(/{{(\w+)}}/g)].map((m) => m[1]).sort();
    const ptLeaves = keys(catalogues.pt);
    for (const key of ptLeaves) {
      const get = (root: unknown) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], root) as string;
      expect(vars(get(catalogues[language])), key).toEqual(vars(get(catalogues.pt)));
    }
  });

  it('translates every ERR_* code and the generic message', () => {
    for (const code of [...ERROR_CODES, 'generic']) expect(reference).toContain(`errors.${code}`);
  });

  it('translates every validation code', () => {
    for (const code of FIELD_CODES) expect(reference).toContain(`validation.${code}`);
  });
});
