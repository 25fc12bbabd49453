/**
 * `withRules` when the rules module cannot be loaded (a deploy replaced the `.wasm`, the network
 * dropped): the calls waiting for it are not lost, each one's fallback runs in order, and a later
 * call loads the module again. A fresh copy of `./rules` is imported, with the glue's loader failing
 * until the test lets it succeed.
 */
/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Glue = typeof import('../../wasm-pkg/chatflow_wasm.js');

afterEach(() => {
  vi.doUnmock('../../wasm-pkg/chatflow_wasm.js');
  vi.resetModules();
  vi.restoreAllMocks();
});

describe('withRules', () => {
  it('runs each waiting call’s fallback in order when the module fails to load, and loads it on a later call', async () => {
    const bytes = readFileSync(resolve(process.cwd(), 'src/wasm-pkg/chatflow_wasm_bg.wasm'));
    let offline = true;
    vi.resetModules();
    vi.doMock('../../wasm-pkg/chatflow_wasm.js', async () => {
      const real = await vi.importActual<Glue>('../../wasm-pkg/chatflow_wasm.js');
      return {
        ...real,
        default: () => {
          if (offline) return Promise.reject(new Error('offline'));
          real.initSync({ module: bytes });
          return Promise.resolve();
        },
      };
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { withRules, currentRules } = await import('./rules');
    expect(currentRules()).toBeNull();

    const seen: string[] = [];
    withRules(
      () => seen.push('applied 1'),
      () => seen.push('fallback 1'),
    );
    withRules(
      () => seen.push('applied 2'),
      () => seen.push('fallback 2'),
    );
    await vi.waitFor(() => expect(seen).toEqual(['fallback 1', 'fallback 2']));
    expect(errors).toHaveBeenCalledTimes(1);

    offline = false;
    withRules(
      (rules) => seen.push(`applied 3: ${rules.passwordStrength('a').label}`),
      () => seen.push('fallback 3'),
    );
    await vi.waitFor(() => expect(seen).toEqual(['fallback 1', 'fallback 2', 'applied 3: weak']));
    withRules(
      () => seen.push('applied 4'),
      () => seen.push('fallback 4'),
    );
    expect(seen.at(-1)).toBe('applied 4');
  });
});
