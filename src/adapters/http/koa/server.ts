import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { errorEnvelope } from '../../../app/kit/error-status.js';
import { TRANSPORT_ERROR_STATUS, type TransportErrorCode } from './http-errors.js';
import { PortInUse } from './port-in-use.js';
import { API_VERSION } from './request-context.js';

export interface ServerTimeouts {
  /** Time to receive the request headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request. */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** Listens on `host:port`; a port someone else holds rejects with PortInUse. */
export function listen(
  app: Koa,
  port: number,
  host: string,
  timeouts = DEFAULT_TIMEOUTS,
  newRequestId: () => string = () => `req_${randomUUID()}`,
): Promise<Server> {
  const server = createServer(app.callback());
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, newRequestId));
  return new Promise((resolve, reject) => {
    const fail = (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortInUse(port, host) : e);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve(server);
    });
  });
}

const CLIENT_ERRORS: Record<string, [code: TransportErrorCode, message: string]> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', `The request headers are larger than ${maxHeaderSize / 1024} KB.`],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};

/**
 * Requests Node refuses before Koa sees them (oversized headers, unparsable HTTP, too slow)
 * still get the JSON error envelope, written raw on the socket, as Node's default handler
 * would write its empty answer.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, newRequestId: () => string): void {
  // Node's own rule: nothing can be written once a response on this socket has begun.
  const current = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? (['BAD_REQUEST', 'The request is not valid HTTP/1.1.'] as const);
  const status = TRANSPORT_ERROR_STATUS[code];
  const requestId = newRequestId();
  const body = JSON.stringify(errorEnvelope(code, message, { requestId }));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      `API-Version: ${API_VERSION}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
export function close(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
