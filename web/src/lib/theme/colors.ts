/** Whitelabel colour rules (spec 2 §9, spec 3 §3). */
export const DEFAULT_PRIMARY_LIGHT = '#0000FF';
export const DEFAULT_PRIMARY_DARK = '#39ACE7';
export const FALLBACK_PRIMARY = '#065183';
export const DEFAULT_APP_NAME = 'Chatflow';

const COLOR = /^(#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})|(rgb|rgba|hsl|hsla)\([^)]*\))$/i;

export function isColor(value: string): boolean {
  return COLOR.test(value.trim());
}

/**
 * The primary colour for a mode: the setting when it is a colour; the mode's default when the
 * setting could not be read (null); the fallback when it was read but is empty or not a colour.
 */
export function primaryColor(mode: 'light' | 'dark', setting: string | null | undefined): string {
  if (setting === null || setting === undefined) return mode === 'light' ? DEFAULT_PRIMARY_LIGHT : DEFAULT_PRIMARY_DARK;
  return isColor(setting) ? setting.trim() : FALLBACK_PRIMARY;
}

export function appNameOf(setting: string | null | undefined): string {
  return setting && setting.trim() ? setting.trim() : DEFAULT_APP_NAME;
}
