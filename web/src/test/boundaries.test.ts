/**
 * The import boundaries of eslint.boundaries.js, run through ESLint with the project's own
 * config: a feature importing another feature or the app is an error, by relative path, through
 * `src/`, by the `@/` alias, as a re-export or as `import()`; what a feature may use passes.
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const eslint = new ESLint();
const BOUNDARY_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax']);

/** The boundary rules that fire on `code` placed at `filePath` (relative to web/). */
async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath });
  return result.messages.flatMap((message) => (message.ruleId && BOUNDARY_RULES.has(message.ruleId) ? [message.ruleId] : []));
}

const importOf = (from: string) => `import { x } from '${from}';\nexport const y = x;`;

describe('feature boundaries', () => {
  const file = 'src/features/contacts/components/Probe.tsx';

  it.each([
    ['a sibling feature', '../../tickets/api/tickets'],
    ['a feature through src/', '../../../features/tickets/types'],
    ['a feature by the alias', '@/features/tickets/types'],
    ['the app', '../../../app/routes'],
    ['the app by the alias', '@/app/routes'],
    ['a feature whose name starts with its own', '../../contacts-archive/api'],
  ])('rejects an import of %s', async (_name, from) => {
    expect(await violations(file, importOf(from))).toEqual(['no-restricted-imports']);
  });

  it('rejects a type-only import, a re-export and a lazy import of another feature', async () => {
    expect(await violations(file, `import type { Ticket } from '../../tickets/types';\nexport type T = Ticket;`)).toEqual(['no-restricted-imports']);
    expect(await violations(file, `export { ticketsKeys } from '../../tickets/api/tickets';`)).toEqual(['no-restricted-imports']);
    expect(await violations(file, `export const page = () => import('../../tickets/components/TicketsPage');`)).toEqual(['no-restricted-syntax']);
  });

  it.each([
    ['its own files', '../api/contacts'],
    ['its own nested part', '../tags/api/tags'],
    ['its own files through src/', '../../../features/contacts/types'],
    ['the shared components', '../../../components/ui'],
    ['the shared library', '../../../lib/lookups/options'],
    ['the shared library by the alias', '@/lib/api'],
    ['the test support', '../../../test/fixtures'],
    ['a package', '@tanstack/react-query'],
  ])('allows %s', async (_name, from) => {
    expect(await violations(file, importOf(from))).toEqual([]);
  });

  it('measures the depth of the importing file', async () => {
    const nested = 'src/features/contacts/tags/components/Probe.tsx';
    expect(await violations(nested, importOf('../../../tickets/types'))).toEqual(['no-restricted-imports']);
    expect(await violations(nested, importOf('../../api/contacts'))).toEqual([]);
    expect(await violations('src/features/tickets/types.ts', importOf('../contacts/types'))).toEqual(['no-restricted-imports']);
    expect(await violations('src/features/tickets/types.ts', importOf('./messages/types'))).toEqual([]);
  });
});

describe('shared code boundaries', () => {
  it('keeps features and the app out of src/lib and src/components', async () => {
    expect(await violations('src/lib/lookups/Probe.ts', importOf('../../features/tickets/types'))).toEqual(['no-restricted-imports']);
    expect(await violations('src/lib/Probe.ts', importOf('../app/routes'))).toEqual(['no-restricted-imports']);
    expect(await violations('src/components/Probe.tsx', importOf('@/features/tickets/types'))).toEqual(['no-restricted-imports']);
    expect(await violations('src/components/ui/Probe.tsx', importOf('../../lib/api'))).toEqual([]);
  });

  it("lets the catalogue registry gather the features' catalogues, and nothing else of them", async () => {
    expect(await violations('src/lib/i18n/locales/Probe.ts', importOf('../../../features/tickets/messages/locales/pt'))).toEqual([]);
    expect(await violations('src/lib/i18n/Probe.ts', importOf('../../features/tickets/api/tickets'))).toEqual(['no-restricted-imports']);
  });

  it('lets the app compose features', async () => {
    expect(await violations('src/app/Probe.tsx', importOf('../features/tickets/components/TicketsPage'))).toEqual([]);
  });
});
