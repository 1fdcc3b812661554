import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiter } from '../../../ports/rate-limiter.js';
import { toDecision } from '../kit/rate-limit-decision.js';

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
      return toDecision(true, res, this.points);
    } catch (e) {
      if (e instanceof RateLimiterRes) return toDecision(false, e, this.points);
      throw e;
    }
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }

  async close(): Promise<void> {}
}
