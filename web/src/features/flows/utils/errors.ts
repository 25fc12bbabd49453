/**
 * The flow builder's error codes (the flows HTTP contract), translated here until the shared
 * catalogue (lib/i18n `errors`) lists them; every other code goes to the shared translation.
 */
import type { TFunction } from 'i18next';
import { isApiError } from '../../../lib/api';
import { translateError } from '../../../lib/i18n/errors';
import { toast } from '../../../lib/toast';
import pt from '../locales/pt';

type FlowErrorCode = keyof typeof pt.flows.errors;

export function isFlowErrorCode(code: unknown): code is FlowErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(pt.flows.errors, code);
}

/** The text for a failure of a flow call. */
export function flowErrorText(error: unknown, t: TFunction): string {
  if (isApiError(error) && isFlowErrorCode(error.code)) return t(`flows.errors.${error.code}`);
  return translateError(error, t);
}

/** Shows a failure of a flow call as an error toast. */
export function toastFlowError(error: unknown, t: TFunction): void {
  toast.error(flowErrorText(error, t));
}
