import { createServer, type Server } from 'node:http';
import type Koa from 'koa';

export interface ServerTimeouts {
  /** Time to receive the request headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request. */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

export function listen(app: Koa, port: number, host: string, timeouts = DEFAULT_TIMEOUTS): Promise<Server> {
  const server = createServer(app.callback());
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

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
