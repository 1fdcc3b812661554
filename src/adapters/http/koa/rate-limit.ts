/**
 * docs/rate-limits.md: free endpoints and unpaid requests to paid endpoints share a budget per client IP.
 * Only a request to a paid route whose payment the facilitator verified is exempt; anything
 * else counts — a PAYMENT-SIGNATURE (or v1 X-PAYMENT) header on a free route, or one that does not
 * verify, buys nothing. A request to a paid route that carries a payment is counted after it is answered
 * (whether it verifies is known only then); one without is counted, and may be refused, first.
 */
import type { Context, Next } from 'koa';
import { RateLimited } from '../../../domain/errors.js';
import type { RateLimiter } from '../../../ports/rate-limiter.js';
import { clientIp, rateLimitKey, type TrustProxy } from './client-ip.js';
import { isPaidRoute } from './paid-routes.js';
import { carriesPayment } from './payment-headers.js';

export interface RateLimitOptions {
  limiter: RateLimiter;
  limit: number;
  windowSeconds: number;
  trustProxy: TrustProxy;
  /** POSTs to these paths keep the budget themselves (the MCP endpoint: whether a call was paid is in its body). */
  selfLimitedPaths?: readonly string[];
}

/** An operator's probes and scraper (load balancers poll them every few seconds): never counted. */
const PROBES = new Set(['/livez', '/readyz', '/metrics']);

export function rateLimit(options: RateLimitOptions) {
  const policy = `"free";q=${options.limit};w=${options.windowSeconds}`;
  const selfLimited = new Set(options.selfLimitedPaths ?? []);
  return async function limitFree(ctx: Context, next: Next): Promise<void> {
    if (ctx.method === 'POST' && selfLimited.has(ctx.path.replace(/(.)\/+$/, '$1'))) return next();
    if (ctx.method === 'GET' && PROBES.has(ctx.path)) return next();
    const key = rateLimitKey(clientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for') || undefined, options.trustProxy));
    const consume = async () => {
      const decision = await options.limiter.consume(key);
      ctx.set('RateLimit-Policy', policy);
      ctx.set('RateLimit', `"free";r=${decision.remaining};t=${decision.resetSeconds}`);
      return decision;
    };
    // x402 v1 hook (decision 0046): a payment in either version's header is counted after the answer.
    if (!(isPaidRoute(ctx) && carriesPayment((name) => ctx.get(name)))) {
      const decision = await consume();
      if (!decision.allowed) throw new RateLimited(options.limit, options.windowSeconds, Math.max(1, decision.resetSeconds));
      await next();
      return;
    }
    try {
      await next();
    } finally {
      // Not verified (refused, undecodable, a replay): it was not a paid request after all.
      if (ctx.state.paymentVerified !== true) await consume();
    }
  };
}
