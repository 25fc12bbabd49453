/**
 * The error shape every call surfaces: the server's `{error, message, fields}` body
 * (docs/api.md "Conventions") plus the HTTP status.
 */

/** Field-level validation codes sent by the server and produced by our zod schemas. */
export const FIELD_CODES = ['REQUIRED', 'TOO_SHORT', 'TOO_LONG', 'INVALID_EMAIL', 'OUT_OF_RANGE', 'INVALID_FORMAT'] as const;
export type FieldCode = (typeof FIELD_CODES)[number];

/** Every ERR_* code the web app knows how to translate. */
export const ERROR_CODES = [
  // spec 1 §8
  'ERR_NO_OTHER_WHATSAPP',
  'ERR_NO_DEF_WAPP_FOUND',
  'ERR_WAPP_NOT_INITIALIZED',
  'ERR_WAPP_CHECK_CONTACT',
  'ERR_WAPP_INVALID_CONTACT',
  'ERR_WAPP_DOWNLOAD_MEDIA',
  'ERR_INVALID_CREDENTIALS',
  'ERR_SENDING_WAPP_MSG',
  'ERR_DELETE_WAPP_MSG',
  'ERR_OTHER_OPEN_TICKET',
  'ERR_SESSION_EXPIRED',
  'ERR_USER_CREATION_DISABLED',
  'ERR_NO_PERMISSION',
  'ERR_DUPLICATED_CONTACT',
  'ERR_NO_SETTING_FOUND',
  'ERR_NO_CONTACT_FOUND',
  'ERR_NO_TICKET_FOUND',
  'ERR_NO_USER_FOUND',
  'ERR_NO_WAPP_FOUND',
  'ERR_CREATING_MESSAGE',
  'ERR_CREATING_TICKET',
  'ERR_FETCH_WAPP_MSG',
  'ERR_QUEUE_COLOR_ALREADY_EXISTS',
  'ERR_WAPP_GREETING_REQUIRED',
  'ERR_OUT_OF_HOURS',
  // codes the server adds (docs/api.md, core/src/error.rs)
  'ERR_BAD_REQUEST',
  'ERR_VALIDATION',
  'ERR_NOT_FOUND',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_TOO_MANY_ATTEMPTS',
  'ERR_INTERNAL',
  'ERR_TOKEN_EXPIRED',
  'ERR_SUBSCRIPTION_EXPIRED',
  'ERR_SIGNUP_DISABLED',
  'ERR_USER_LIMIT_REACHED',
  'ERR_CONNECTION_LIMIT_REACHED',
  'ERR_QUEUE_LIMIT_REACHED',
  'ERR_NO_FLOW_FOUND',
  'ERR_NO_FLOW_CAMPAIGN_FOUND',
  'ERR_FLOW_IN_USE',
  'ERR_FLOW_INVALID',
  'ERR_FLOW_MEDIA_TYPE',
  'ERR_FLOW_MEDIA_TOO_LARGE',
  'ERR_DUPLICATED_EMAIL',
  'ERR_INVALID_SETTING',
  'ERR_SETTING_MESSAGE_REQUIRED',
  'ERR_INVALID_TICKET_TRANSITION',
  'ERR_TAG_REQUIRED',
  'ERR_QUEUE_REQUIRED',
  'ERR_TICKET_OWNED_BY_OTHER',
  'ERR_NO_COMPANY_FOUND',
  'ERR_NO_PLAN_FOUND',
  'ERR_INVALID_RESET_CODE',
  'ERR_MAIL_NOT_CONFIGURED',
  'ERR_INVALID_FILE',
  'ERR_CHANNEL_NOT_SUPPORTED',
  'ERR_INTEGRATION_UNAVAILABLE',
  'ERR_QUICK_MESSAGE_SHORTCODE_EXISTS',
  'ERR_CHANNEL_LEASE_LOST',
  // client side: the server could not be reached
  'ERR_NETWORK',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  field: string;
  code: string;
}

export class ApiError extends Error {
  readonly status: number;
  /** The server's ERR_* code, when the body carried one. */
  readonly code: string | undefined;
  readonly fields: FieldError[];
  /** The parsed error body, for errors that carry more (a 409's existing `ticket`...). */
  readonly body: unknown;

  constructor(status: number, code: string | undefined, message: string, fields: FieldError[] = [], body: unknown = undefined) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.body = body;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** Builds an ApiError from a failed response (body already read as text). */
export function apiErrorFrom(status: number, bodyText: string): ApiError {
  let code: string | undefined;
  let message = '';
  let fields: FieldError[] = [];
  let parsedBody: unknown;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    parsedBody = parsed;
    if (typeof parsed === 'string') {
      message = parsed;
    } else if (parsed && typeof parsed === 'object') {
      const body = parsed as Record<string, unknown>;
      if (typeof body.error === 'string') code = body.error;
      if (typeof body.message === 'string') message = body.message;
      if (Array.isArray(body.fields)) {
        fields = body.fields.filter(
          (f): f is FieldError =>
            !!f && typeof f === 'object' && typeof (f as FieldError).field === 'string' && typeof (f as FieldError).code === 'string',
        );
      }
    }
  } catch {
    message = bodyText;
  }
  return new ApiError(status, code, message, fields, parsedBody);
}
