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

export function observeRequests(logger: Logger, metrics: Metrics, of: { route(ctx: Context): string; client(ctx: Context): string }) {
  return async function observe(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const template = of.route(ctx);
      const status = ctx.status;
      metrics.observe('http_request_duration_seconds', seconds, { method: ctx.method, route: template, status });
      if (status === 429 && (ctx.body as { error?: { code?: string } } | undefined)?.error?.code === 'RATE_LIMITED') {
        metrics.increment('rate_limited_total', { route: template });
      }
      logger.info('request', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        route: template,
        status,
        ms: Math.round(seconds * 10_000) / 10,
        client: of.client(ctx),
        ...(ctx.state.paymentId ? { paymentId: ctx.state.paymentId } : {}),
      });
    }
  };
}
