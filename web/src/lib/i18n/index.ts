/**
 * i18next set-up: Portuguese by default and as fallback, plus English, Spanish and Turkish.
 * The chosen language is kept in localStorage `language`. Keys are typed from the pt catalogue
 * (see i18next.d.ts); a key missing at run time is reported in development.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import pt from './locales/pt';
import en from './locales/en';
import es from './locales/es';
import tr from './locales/tr';

export const LANGUAGES = ['pt', 'en', 'es', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt';
const STORAGE_KEY = 'language';

export const catalogues = { pt, en, es, tr } as const;

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
  resources: {
    pt: { translation: pt },
    en: { translation: en },
    es: { translation: es },
    tr: { translation: tr },
  },
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  interpolation: { escapeValue: false },
  returnNull: false,
  saveMissing: import.meta.env.DEV,
  missingKeyHandler: (_lngs, _ns, key) => {
    console.error(`[i18n] missing translation key: ${key}`);
  },
  initAsync: false,
});

if (typeof document !== 'undefined') document.documentElement.lang = LOCALE_TAGS[storedLanguage()];

export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  document.documentElement.lang = LOCALE_TAGS[language];
  await i18n.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : DEFAULT_LANGUAGE;
}

export default i18n;
