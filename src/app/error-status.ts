/**
 * The one table from error code to HTTP status (SPEC §10). The HTTP adapter renders errors with
 * it, and the payment flow uses it to store the exact response a replay must get back.
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
  PAYMENT_REQUIRED: 402,
  PAYMENT_INVALID: 402,
  INSUFFICIENT_FUNDS: 402,
  NETWORK_MISMATCH: 402,
  NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  ENTRYPOINT_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SLIPPAGE_EXCEEDED: 409,
  INSUFFICIENT_BALANCE: 409,
  TOKEN_GRADUATED: 409,
  CURVE_CAPACITY_EXCEEDED: 409,
  TOKEN_NETWORK_MISMATCH: 409,
  PAYMENT_ALREADY_USED: 409,
  REQUEST_TIMEOUT: 408,
  QUOTE_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  FACILITATOR_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  NETWORK_DETECTION_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export function statusOf(code: string): number {
  return ERROR_STATUS[code] ?? 500;
}

export interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export interface SuccessEnvelope<T = unknown> {
  success: true;
  operation: string;
  data: T;
}

export function successEnvelope<T>(operation: string, data: T): SuccessEnvelope<T> {
  return { success: true, operation, data };
}

export function errorEnvelope(code: string, message: string, details?: Record<string, unknown>): ErrorEnvelope {
  return { success: false, error: details === undefined ? { code, message } : { code, message, details } };
}
