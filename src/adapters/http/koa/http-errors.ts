/**
 * Errors of HTTP itself — a method a path does not serve, a body too large, not JSON, not
 * declared as JSON, a request Node could not read. They belong to this adapter, not to the domain; they leave in the same
 * envelope as every other error, with the statuses of their own table.
 */
import { DomainError } from '../../../domain/errors.js';

export class MethodNotAllowed extends DomainError {
  readonly code = 'METHOD_NOT_ALLOWED';
  readonly allow: string[];
  constructor(allow: string[]) {
    super(`Method not allowed. Allowed: ${allow.join(', ')}.`, { allow });
    this.allow = allow;
  }
}

export class PayloadTooLarge extends DomainError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`, { limitBytes });
  }
}

export class UnsupportedMediaType extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor() {
    super('Send the body as application/json.');
  }
}

export class InvalidJson extends DomainError {
  readonly code = 'INVALID_JSON';
  constructor(message = 'The request body is not valid JSON.') {
    super(message);
  }
}

/** What Node refuses before Koa sees a request (written raw by server.ts, same envelope). */
export class BadRequest extends DomainError {
  readonly code = 'BAD_REQUEST';
}

export class RequestTimeout extends DomainError {
  readonly code = 'REQUEST_TIMEOUT';
}

export class HeadersTooLarge extends DomainError {
  readonly code = 'HEADERS_TOO_LARGE';
}

/**
 * A CORS preflight, or a call to a paid route or /mcp, from an origin that is neither the service's
 * own nor one CORS_ORIGINS lists (docs/api.md "Browsers and other origins").
 */
export class CorsOriginNotAllowed extends DomainError {
  readonly code = 'CORS_ORIGIN_NOT_ALLOWED';
  constructor(origin: string) {
    super(`Requests from the origin ${origin} are not allowed (CORS_ORIGINS).`, { origin });
  }
}

/** A call to a paid route or /mcp naming a Host the service does not answer to (PUBLIC_URL, HOST, ALLOWED_HOSTS): DNS rebinding. */
export class HostNotAllowed extends DomainError {
  readonly code = 'HOST_NOT_ALLOWED';
  constructor(host: string) {
    super(`This service does not answer to the Host ${host || '(none)'} (PUBLIC_URL, ALLOWED_HOSTS).`, { host });
  }
}

const TRANSPORT_ERRORS = [
  MethodNotAllowed,
  PayloadTooLarge,
  UnsupportedMediaType,
  InvalidJson,
  BadRequest,
  RequestTimeout,
  HeadersTooLarge,
  CorsOriginNotAllowed,
  HostNotAllowed,
] as const;
export type TransportErrorCode = InstanceType<(typeof TRANSPORT_ERRORS)[number]>['code'];

/** A class above without a row here does not compile. */
export const TRANSPORT_ERROR_STATUS: Readonly<Record<TransportErrorCode, number>> = {
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  CORS_ORIGIN_NOT_ALLOWED: 403,
  HOST_NOT_ALLOWED: 403,
};

export function isTransportError(e: unknown): e is InstanceType<(typeof TRANSPORT_ERRORS)[number]> {
  return TRANSPORT_ERRORS.some((c) => e instanceof c);
}
