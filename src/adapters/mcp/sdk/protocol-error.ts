/**
 * A JSON-RPC error a request handler throws: the SDK sends its `code`, `message` and `data` as
 * they are. Not McpError, whose message already starts "MCP error <code>: " — the client adds that
 * prefix itself, so an McpError's would be read twice.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { errorEnvelope } from '../../../app/error-status.js';
import { DomainError } from '../../../domain/errors.js';
import type { Logger } from '../../../ports/logger.js';

/** MCP's "resource not found" (specification, server/resources "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

export function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/**
 * A failure of a resource read or a prompt: a domain refusal keeps its message and its envelope as
 * `data` under `code`; anything else is an internal error whose message is not sent (as over HTTP).
 */
export function protocolFailure(e: unknown, code: number, logger: Logger): Error {
  if (e instanceof DomainError) return protocolError(code, e.message, errorEnvelope(e.code, e.message, e.details).error);
  logger.error('MCP request failed', { error: e instanceof Error ? e.message : String(e) });
  return protocolError(ErrorCode.InternalError, 'Internal error.');
}
