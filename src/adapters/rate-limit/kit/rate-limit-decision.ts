import type { RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitDecision } from '../../../ports/rate-limiter.js';

/** A rate-limiter-flexible answer as the RateLimiter port's decision. */
export function toDecision(allowed: boolean, res: RateLimiterRes, limit: number): RateLimitDecision {
  return { allowed, limit, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
}
