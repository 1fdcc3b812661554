/**
 * SPEC §11: free endpoints and unpaid requests to paid endpoints share a budget per client IP;
 * a request carrying a payment is not limited (it is paid for — if the payment turns out invalid,
 * the answer is a 402 and it is counted then).
 */
import type { Context, Next } from 'koa';
import { RateLimited } from '../../../domain/errors.js';
import type { RateLimiter } from '../../../ports/rate-limiter.js';
import { clientIp, rateLimitKey, type TrustProxy } from './client-ip.js';
import { PAYMENT_SIGNATURE } from './x402-headers.js';

export interface RateLimitOptions {
  limiter: RateLimiter;
  limit: number;
  windowSeconds: number;
  trustProxy: TrustProxy;
}

export function rateLimit(options: RateLimitOptions) {
  const policy = `"free";q=${options.limit};w=${options.windowSeconds}`;
  return async function limitFree(ctx: Context, next: Next): Promise<void> {
    const key = () =>
      rateLimitKey(clientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for') || undefined, options.trustProxy));
    const paid = ctx.get(PAYMENT_SIGNATURE) !== '';
    if (!paid) {
      const decision = await options.limiter.consume(key());
      ctx.set('RateLimit-Policy', policy);
      ctx.set('RateLimit', `"free";r=${decision.remaining};t=${decision.resetSeconds}`);
      if (!decision.allowed) throw new RateLimited(options.limit, options.windowSeconds, Math.max(1, decision.resetSeconds));
    }
    await next();
    // A payment that turned out invalid was not a paid request after all: it counts.
    if (paid && ctx.status === 402) await options.limiter.consume(key());
  };
}
