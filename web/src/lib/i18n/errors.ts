/**
 * Turns any failure into the text a toast shows (spec 1 §8): the translated ERR_* code when
 * known, else the server's raw message, else "An error occurred!" translated.
 */
import type { TFunction } from 'i18next';
import { isApiError } from '../api/errors';
import i18n from 'i18next';
import pt from './locales/pt';

type ErrorKey = Exclude<keyof typeof pt.errors, 'generic'>;
type FieldKey = keyof typeof pt.validation;

export function isKnownErrorCode(code: unknown): code is ErrorKey {
  return typeof code === 'string' && code !== 'generic' && Object.prototype.hasOwnProperty.call(pt.errors, code);
}

export function isKnownFieldCode(code: unknown): code is FieldKey {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(pt.validation, code);
}

export function translateError(error: unknown, t: TFunction): string {
  let code: unknown;
  let message: unknown;
  if (isApiError(error)) {
    code = error.code;
    message = error.message;
  } else if (error && typeof error === 'object') {
    code = (error as { code?: unknown; error?: unknown }).code ?? (error as { error?: unknown }).error;
    message = (error as { message?: unknown }).message;
  } else if (typeof error === 'string') {
    code = error;
    message = error;
  }
  if (isKnownErrorCode(code)) return t(`errors.${code}`);
  if (isKnownErrorCode(message)) return t(`errors.${message}`);
  if (typeof message === 'string' && message.trim()) return message;
  return t('errors.generic');
}

/**
 * Translates a form message: a validation code (ours or the server's), or a full translation
 * key such as `forgotPassword.mismatch`; anything else is shown as given.
 */
export function translateFieldCode(code: string | undefined, t: TFunction): string | undefined {
  if (!code) return undefined;
  if (isKnownFieldCode(code)) return t(`validation.${code}`);
  if (i18n.exists(code)) return (t as unknown as (key: string) => string)(code);
  return code;
}
