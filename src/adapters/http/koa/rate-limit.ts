/**
 * docs/rate-limits.md: free endpoints and unpaid requests to paid endpoints share a budget per client IP.
 * Only a request to a paid route whose payment the facilitator verified is exempt; anything
 * else counts — a PAYMENT-SIGNATURE (or v1 X-PAYMENT) header on a free route, or one that does not
 * verify, buys nothing. A request to a paid route that carries a payment is counted after it is answered
 * (whether it verifies is known only then); one without is counted, and may be refused, first.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { RateLimited } from '../../../domain/errors.js';
import type { RateLimitDecision, RateLimiter } from '../../../ports/rate-limiter.js';
import { clientKeyOf, type TrustProxy } from './client-ip.js';
import { isPaidRoute } from './paid-routes.js';
import { carriesPayment } from './payment-headers.js';

/** The free budget: how many free requests a client may make per window, kept by `limiter`. */
export interface FreeBudget {
  limiter: RateLimiter;
  limit: number;
  windowSeconds: number;
  trustProxy: TrustProxy;
}

export interface RateLimitOptions extends FreeBudget {
  /** POSTs to these paths keep the budget themselves (the MCP endpoint: whether a call was paid is in its body). */
  selfLimitedPaths?: readonly string[];
}

/** An operator's probes and scraper (load balancers poll them every few seconds): never counted. */
export const PROBES: ReadonlySet<string> = new Set(['/livez', '/readyz', '/metrics']);

/** The count a request was made with already (kept-answers.ts counts before handing a request on). */
const COUNTED = Symbol('free budget count');
type Counted = IncomingMessage & { [COUNTED]?: Promise<RateLimitDecision> };

/**
 * Counts `req` against the budget once: the count it was made with already, else a new one. The
 * count itself is kept, not only its decision: a store that failed after its increment landed
 * fails the request again where it is handed on, never counting it twice.
 */
export function countOnce(budget: FreeBudget, req: IncomingMessage, key: string): Promise<RateLimitDecision> {
  const counted = req as Counted;
  if (!counted[COUNTED]) {
    try {
      counted[COUNTED] = budget.limiter.consume(key);
    } catch (e) {
      counted[COUNTED] = Promise.reject(e as Error); // a limiter that throws before its promise fails the same way
    }
  }
  return counted[COUNTED];
}

/** The RateLimit headers (IETF draft) of a decision. */
export function budgetHeaders(budget: FreeBudget, decision: RateLimitDecision): [string, string][] {
  return [
    ['RateLimit-Policy', `"free";q=${budget.limit};w=${budget.windowSeconds}`],
    ['RateLimit', `"free";r=${decision.remaining};t=${decision.resetSeconds}`],
  ];
}

export function rateLimit(options: RateLimitOptions) {
  const selfLimited = new Set(options.selfLimitedPaths ?? []);
  return async function limitFree(ctx: Context, next: Next): Promise<void> {
    if (ctx.method === 'POST' && selfLimited.has(ctx.path.replace(/(.)\/+$/, '$1'))) return next();
    if (ctx.method === 'GET' && PROBES.has(ctx.path)) return next();
    const key = clientKeyOf(ctx.req, options.trustProxy);
    const consume = async () => {
      const decision = await countOnce(options, ctx.req, key);
      for (const [name, value] of budgetHeaders(options, decision)) ctx.set(name, value);
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
