export { api, publicApi, createApiClient, logoutSignal, refreshSignal, subscriptionExpiredSignal, API_BASE_URL } from './client';
export type { ApiClient, RequestOptions } from './client';
export { ApiError, isApiError, ERROR_CODES, FIELD_CODES } from './errors';
export type { ErrorCode, FieldCode, FieldError } from './errors';
export { getToken, setToken, clearToken } from './token';
