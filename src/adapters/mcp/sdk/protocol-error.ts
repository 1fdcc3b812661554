/**
 * A JSON-RPC error a request handler throws: the SDK sends its `code`, `message` and `data` as
 * they are (a v2 `ProtocolError` carries its message verbatim; the client no longer prefixes it).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { errorEnvelope } from '../../../app/kit/error-status.js';
import { DomainError } from '../../../domain/errors.js';
import type { Logger } from '../../../ports/logger.js';

/**
 * MCP's "resource not found": invalid params (-32602) on every protocol revision — the
 * 2026-07-28 specification's rule, which the SDK v2 applies to 2025-era answers too (it maps the
 * older -32002 to -32602 on the wire; decision 0071). A client tells it apart by `data.uri`.
 */
export const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;

export function protocolError(code: number, message: string, data?: unknown): ProtocolError {
  return new ProtocolError(code, message, data);
}

/**
 * A failure of a resource read or a prompt: a domain refusal keeps its message and its envelope as
 * `data` under `code`; anything else is an internal error whose message is not sent (as over HTTP).
 */
export function protocolFailure(e: unknown, code: number, logger: Logger): ProtocolError {
  if (e instanceof DomainError) return protocolError(code, e.message, errorEnvelope(e.code, e.message, e.details).error);
  logger.error('MCP request failed', { error: e instanceof Error ? e.message : String(e) });
  return protocolError(ProtocolErrorCode.InternalError, 'Internal error.');
}
