// The web app's import boundaries (docs/architecture.md "Web app"), as ESLint's own
// `no-restricted-imports` (static imports and re-exports) and `no-restricted-syntax` (`import()`).
//
// - A feature (`src/features/<name>/`) imports its own files, `src/components/`, `src/lib/` and
//   `src/test/`; never another feature and never `src/app/` (the app composes features).
// - `src/components/` and `src/lib/` import neither features nor the app; only the catalogue
//   registry `src/lib/i18n/` imports the features' `locales/`.
// - `src/app/`, `src/test/` and `src/main.tsx` may import anything.
//
// Both core rules match the import's text, not the file it resolves to, so the patterns are made
// per feature and per folder depth: from `src/features/tickets/components/X.tsx`, `../../` is
// `src/features/` and `../../../` is `src/`. `@/` stands for `src/` (no alias is configured today;
// the rule is ready for one).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('./src', import.meta.url));
/** Deepest folder level below an area (`src/features/<name>/` or `src/lib/`) that gets checked. */
const MAX_DEPTH = 8;
const FILES = '*.{ts,tsx}';

const up = (n) => `(?:\\.\\./){${n}}`;
// Folder names are `[a-z-]`; `.` is the only character to escape (the rules compile with the `u` flag).
const escape = (text) => text.replaceAll('.', '\\.');
const glob = (base, depth) => `${base}/${'*/'.repeat(depth)}${FILES}`;

/** Feature folders: `src/features/*`. */
export function featureNames(src = SRC) {
  return readdirSync(`${src}/features`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The import texts a file `depth` folders below `src/features/<feature>/` may not use: another
 * feature (reached as a sibling folder or through `src/`) or the app.
 */
export function featureImportPattern(feature, depth) {
  const other = `(?!${escape(feature)}(?:/|$))[^./]`;
  const viaSrc = `(?:features/(?!${escape(feature)}(?:/|$))[^./]|app(?:/|$))`;
  return `^(?:\\./)?(?:${up(depth + 1)}${other}|${up(depth + 2)}${viaSrc}|@/${viaSrc})`;
}

/**
 * The import texts a file `depth` folders below `src/lib/` or `src/components/` may not use:
 * features and the app; with `locales`, a feature's `locales/` folder stays allowed.
 */
export function sharedImportPattern(depth, { locales = false } = {}) {
  const features = locales ? 'features(?!/(?:[^/]+/)+locales/)' : 'features';
  const target = `(?:${features}|app)(?:/|$)`;
  return `^(?:\\./)?(?:${up(depth + 1)}${target}|@/${target})`;
}

/** The two rules for one pattern: static imports/re-exports, and `import()` of a string. */
function rules(pattern, message) {
  // esquery reads `/…/` up to the next slash: spell it `\x2F` inside the selector's regex.
  const selector = `ImportExpression[source.value=/${pattern.replaceAll('/', '\\x2F')}/]`;
  return {
    'no-restricted-imports': ['error', { patterns: [{ regex: pattern, message }] }],
    'no-restricted-syntax': ['error', { selector, message }],
  };
}

const FEATURE_MESSAGE =
  'Features do not import each other or the app: move what both use to src/components/ or src/lib/ (docs/architecture.md "Web app").';
const SHARED_MESSAGE = 'src/components/ and src/lib/ do not import features or the app (docs/architecture.md "Web app").';

/** Flat-config blocks, one per feature and folder depth, then one per shared area and depth. */
export function boundaries(src = SRC) {
  const blocks = [];
  for (const feature of featureNames(src)) {
    for (let depth = 0; depth <= MAX_DEPTH; depth++) {
      blocks.push({ files: [glob(`src/features/${feature}`, depth)], rules: rules(featureImportPattern(feature, depth), FEATURE_MESSAGE) });
    }
  }
  for (const area of ['src/components', 'src/lib']) {
    for (let depth = 0; depth <= MAX_DEPTH; depth++) {
      blocks.push({ files: [glob(area, depth)], rules: rules(sharedImportPattern(depth), SHARED_MESSAGE) });
    }
  }
  // The catalogue registry gathers the features' catalogues (src/lib/i18n/locales/*.ts and its index).
  for (let depth = 0; depth <= MAX_DEPTH - 1; depth++) {
    blocks.push({ files: [glob('src/lib/i18n', depth)], rules: rules(sharedImportPattern(depth + 1, { locales: true }), SHARED_MESSAGE) });
  }
  return blocks;
}
