/**
 * The one table from error code to HTTP status (docs/api.md "Error codes"). The HTTP adapter renders errors with
 * it, and the payment flow uses it to store the exact response a replay must get back.
 *
 * `ErrorCode` is derived from the error classes src/domain/errors.ts exports, so a new error
 * class without a row here is a compile error, not a silent 500. (HTTP's own errors — 405, 413,
 * 415, INVALID_JSON — live with their table in the HTTP adapter.)
 */
import type * as DomainErrors from '../../domain/errors.js';

type Exported = typeof DomainErrors;
type CodeOf<T> = T extends abstract new (...args: never[]) => infer I
  ? I extends { code: infer C extends string }
    ? string extends C
      ? never // the abstract DomainError itself
      : C
    : never
  : never;

export type ErrorCode = { [K in keyof Exported]: CodeOf<Exported[K]> }[keyof Exported];

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  PAYMENT_REQUIRED: 402,
  PAYMENT_INVALID: 402,
  INSUFFICIENT_FUNDS: 402,
  NETWORK_MISMATCH: 402,
  NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  ENTRYPOINT_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  SLIPPAGE_EXCEEDED: 409,
  INSUFFICIENT_BALANCE: 409,
  TOKENS_LOCKED: 409,
  TOKEN_GRADUATED: 409,
  CURVE_CAPACITY_EXCEEDED: 409,
  TOKEN_NETWORK_MISMATCH: 409,
  PAYMENT_ALREADY_USED: 409,
  QUOTE_EXPIRED: 410,
  RATE_LIMITED: 429,
  FACILITATOR_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  NETWORK_DETECTION_UNAVAILABLE: 503,
  REFERRER_NOT_ALLOWED: 400,
  TOKEN_AUTHORIZATION_INVALID: 400, // 409 when signed by another wallet than the payer: the error says so
  TOKEN_NOT_DEPLOYED: 409,
  COMMENT_TEXT_EMPTY: 400,
  COMMENT_TEXT_TOO_LONG: 400,
  COMMENT_CONTROL_CHARACTER: 400,
  COMMENT_BIDI_CONTROL: 400,
  COMMENT_REPLY_INVALID: 409,
  COMMENT_NOT_FOUND: 404,
  IMAGE_TOO_LARGE: 413,
  IMAGE_TOO_MANY_PIXELS: 413,
  IMAGE_TOO_COMPLEX: 422,
  IMAGE_SVG_REFUSED: 415,
  IMAGE_TYPE_UNSUPPORTED: 415,
  IMAGE_UNREADABLE: 400,
  NOT_TOKEN_CREATOR: 403,
  TOKEN_RAISING: 409,
  RAISE_NOT_FOUND: 404,
  RAISE_CLOSED: 409,
  PLEDGE_CAP_EXCEEDED: 409,
  PLEDGE_NOT_FOUND: 404,
  PLEDGE_NOT_CANCELLABLE: 409, // 403 when the signature proves another wallet: the error says so
  HELD_AUTHORIZATION_INVALID: 400,
  ORDER_NOT_OPEN: 409,
  ORDER_WALLET_NOT_PROVEN: 403,
  INTERNAL_ERROR: 500,
};

/** The status of a domain error's code; a code of no domain class is an internal error. */
export function statusOf(code: string): number {
  return (ERROR_STATUS as Readonly<Record<string, number>>)[code] ?? 500;
}

/** An error's status: its code's, unless the error carries its own (one documented case). */
export function statusOfError(e: { code: string; status?: number }): number {
  return e.status ?? statusOf(e.code);
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
