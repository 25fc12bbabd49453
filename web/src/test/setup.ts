/// <reference types="node" />
import '@testing-library/jest-dom/vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { loadPageCatalogues, PAGE_CATALOGUES, type PageCatalogue } from '../lib/i18n';
import { loadRulesFromBytes } from '../lib/wasm/rules';

// Components are also rendered outside their routes: the Portuguese catalogues that load with
// pages (lib/i18n `PAGE_CATALOGUES`) are all in from the start.
await loadPageCatalogues(Object.keys(PAGE_CATALOGUES) as PageCatalogue[]);

// The core's rules (the real WASM build, `cargo xtask wasm`), read from disk: jsdom cannot fetch
// the .wasm file the browser loads after the first render.
await loadRulesFromBytes(readFileSync(resolve(process.cwd(), 'src/wasm-pkg/chatflow_wasm_bg.wasm')));

// The first render of a lazy page compiles its chunk: on a busy machine that takes more than
// Testing Library's default second, and on a machine shared with compilers more than five
// (two ticket tests timed out at 5 s under a load of 4 on 2 cores).
configure({ asyncUtilTimeout: 15_000 });

// jsdom has no matchMedia: behave like a wide screen (permanent drawer).
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: vi.fn((query: string) => ({
    matches: /min-width/.test(query),
    media: query,
    onchange: null,
    addListener: vi.fn(),
    removeListener: vi.fn(),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    dispatchEvent: vi.fn(),
  })),
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  vi.unstubAllGlobals();
});
