import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiter } from '../../../ports/rate-limiter.js';

/** A fixed window per key, in this process's memory (rate-limiter-flexible). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterMemory;
  private readonly points: number;

  constructor(options: { points: number; durationSeconds: number; keyPrefix?: string }) {
    this.points = options.points;
    this.limiter = new RateLimiterMemory({
      points: options.points,
      duration: options.durationSeconds,
      keyPrefix: options.keyPrefix ?? 'free',
    });
  }

  async consume(key: string): Promise<RateLimitDecision> {
    try {
      const res = await this.limiter.consume(key);
      return this.decision(true, res);
    } catch (e) {
      if (e instanceof RateLimiterRes) return this.decision(false, e);
      throw e;
    }
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }

  private decision(allowed: boolean, res: RateLimiterRes): RateLimitDecision {
    return {
      allowed,
      limit: this.points,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.ceil(res.msBeforeNext / 1000),
    };
  }
}
