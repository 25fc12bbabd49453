/**
 * i18next set-up: Portuguese by default and as fallback, plus English, Spanish and Turkish.
 * The chosen language is kept in localStorage `language`. Keys are typed from the pt catalogue
 * (see i18next.d.ts); a key missing at run time is reported in development.
 *
 * Only Portuguese (the fallback) is in the first load; the other catalogues are chunks of their
 * own, imported when chosen ([`setLanguage`]) or, for a stored choice, before the first render
 * ([`i18nReady`], awaited by main.tsx). Of Portuguese, the catalogues of pages the inbox does not
 * show are chunks too, loaded with those pages ([`PAGE_CATALOGUES`], [`withCatalogues`]).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { z } from 'zod/mini';
import pt, { type Catalogue } from './locales/pt';

export const LANGUAGES = ['pt', 'en', 'es', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt';
const STORAGE_KEY = 'language';

/** The catalogues other than pt, each loaded on demand (its own chunk). */
const loaders: Record<Exclude<Language, 'pt'>, () => Promise<{ default: Catalogue }>> = {
  en: () => import('./locales/en'),
  es: () => import('./locales/es'),
  tr: () => import('./locales/tr'),
};

/** Loads `language`'s catalogue into i18next (once); pt is always there. */
export async function loadLanguage(language: Language): Promise<void> {
  if (language === 'pt' || i18n.hasResourceBundle(language, 'translation')) return;
  const { default: catalogue } = await loaders[language]();
  i18n.addResourceBundle(language, 'translation', catalogue, true, true);
}

/**
 * Portuguese catalogues left out of the first load (the inbox does not use them), each a chunk
 * loaded with the pages that do (`withCatalogues` in app/routes.tsx). The other languages'
 * catalogues are whole: they are loaded on demand anyway.
 */
export const PAGE_CATALOGUES = {
  connections: () => import('../../features/connections/locales/pt'),
  queues: () => import('../../features/queues/locales/pt'),
  flows: () => import('../../features/flows/locales/pt'),
  settings: () => import('./locales/pt-settings'),
  users: () => import('./locales/pt-users'),
  signup: () => import('./locales/pt-signup'),
} as const;
export type PageCatalogue = keyof typeof PAGE_CATALOGUES;

/** Adds `names`' Portuguese catalogues (once loaded, adding again changes nothing). */
export async function loadPageCatalogues(names: readonly PageCatalogue[]): Promise<void> {
  const parts = await Promise.all(names.map((name) => PAGE_CATALOGUES[name]()));
  for (const { default: part } of parts) i18n.addResourceBundle('pt', 'translation', part, true, false);
}

/** A page's lazy import that also loads the Portuguese catalogues it uses, both before it renders. */
export function withCatalogues<T>(names: readonly PageCatalogue[], load: () => Promise<T>): () => Promise<T> {
  return () => Promise.all([load(), loadPageCatalogues(names)]).then(([page]) => page);
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function storedLanguage(): Language {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLanguage(value) ? value : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** BCP 47 tags for <html lang> and number/date formatting. */
export const LOCALE_TAGS: Record<Language, string> = { pt: 'pt-BR', en: 'en-US', es: 'es-ES', tr: 'tr-TR' };

void i18n.use(initReactI18next).init({
  // A copy: the page catalogues added later extend it, not the module's first-load part.
  resources: { pt: { translation: { ...pt } } },
  // Another stored language is switched to once its catalogue is in (`i18nReady`).
  lng: DEFAULT_LANGUAGE,
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  interpolation: { escapeValue: false },
  returnNull: false,
  saveMissing: import.meta.env.DEV,
  missingKeyHandler: (_lngs, _ns, key) => {
    console.error(`[i18n] missing translation key: ${key}`);
  },
  initAsync: false,
  // Lets `addResourceBundle` before `changeLanguage` be the whole of loading a catalogue.
  partialBundledLanguages: true,
});

if (typeof document !== 'undefined') document.documentElement.lang = LOCALE_TAGS[storedLanguage()];

// zod's own issue messages (a check that words none of its own, e.g. a form's whole-number check)
// stay English, as classic zod set them by itself: zod/mini leaves the locale to the app.
z.config(z.locales.en());

/** Resolves once the stored language's catalogue is loaded and active (pt at once). */
export const i18nReady: Promise<void> = (async () => {
  const stored = storedLanguage();
  if (stored === DEFAULT_LANGUAGE) return;
  try {
    await loadLanguage(stored);
    await i18n.changeLanguage(stored);
  } catch (error) {
    // The catalogue could not be fetched (offline, a newer deployment): stay in Portuguese.
    console.warn(`could not load the ${stored} catalogue`, error);
  }
})();

export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  await loadLanguage(language);
  document.documentElement.lang = LOCALE_TAGS[language];
  await i18n.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : DEFAULT_LANGUAGE;
}

export default i18n;
