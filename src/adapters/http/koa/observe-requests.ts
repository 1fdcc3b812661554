/**
 * One access line and one latency observation per request (docs/operations.md, "Logs" and
 * "Metrics"): the request id, method, path, the route template it matched, status, duration, the
 * client's address, and the payment id when the request carried a payment the flow knows.
 * Runs outside the error middleware, so the status is the one sent.
 */
import type { Context, Next } from 'koa';
import type { Logger } from '../../../ports/logger.js';
import type { Metrics } from '../../../ports/metrics.js';

/** The route label of a request no route answered (404, 405): one series, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What one answered request leaves behind: its latency observation and its access line. */
export interface Answered {
  requestId: string;
  method: string;
  path: string;
  route: string;
  status: number;
  seconds: number;
  /** The client's address; asked only when the access line is written. */
  client(): string;
  paymentId?: string | undefined;
}

/** The latency observation and the access line of one request, whichever path answered it (Koa's or kept-answers.ts). */
export function recordAnswered(logger: Logger, metrics: Metrics, a: Answered): void {
  metrics.observe('http_request_duration_seconds', a.seconds, { method: a.method, route: a.route, status: a.status });
  // The line's fields are made only when it is written (LOG_LEVEL=warn writes none).
  if (logger.enabled?.('info') === false) return;
  logger.info('request', {
    requestId: a.requestId,
    method: a.method,
    path: a.path,
    route: a.route,
    status: a.status,
    ms: Math.round(a.seconds * 10_000) / 10,
    client: a.client(),
    ...(a.paymentId ? { paymentId: a.paymentId } : {}),
  });
}

export function observeRequests(logger: Logger, metrics: Metrics, of: { route(ctx: Context): string; client(ctx: Context): string }) {
  return async function observe(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const template = of.route(ctx);
      const status = ctx.status;
      if (status === 429 && (ctx.body as { error?: { code?: string } } | undefined)?.error?.code === 'RATE_LIMITED') {
        metrics.increment('rate_limited_total', { route: template });
      }
      recordAnswered(logger, metrics, {
        requestId: ctx.state.requestId as string,
        method: ctx.method,
        path: ctx.path,
        route: template,
        status,
        seconds,
        client: () => of.client(ctx),
        paymentId: ctx.state.paymentId as string | undefined,
      });
    }
  };
}
