/**
 * The free-endpoint budget shared by every service process through Redis (rate-limiter-flexible).
 * Redis must never make a request hang: no offline queue, short command timeouts, and an
 * in-memory insurance limiter that takes over while Redis is unreachable (health: degraded);
 * the limiter goes back to Redis by itself when it returns.
 */
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiter } from '../../../ports/rate-limiter.js';
import { toDecision } from '../kit/rate-limit-decision.js';

export interface RedisRateLimiterOptions {
  url: string;
  points: number;
  durationSeconds: number;
  keyPrefix?: string;
  /** Per-command timeout; past it the insurance limiter answers. */
  commandTimeoutMs?: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly redis: Redis;
  private readonly limiter: RateLimiterRedis;
  private readonly points: number;

  constructor(options: RedisRateLimiterOptions) {
    this.points = options.points;
    this.redis = new Redis(options.url, {
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs ?? 200,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      lazyConnect: false,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    // Connection errors are expected while Redis is down; health reports them.
    this.redis.on('error', () => {});
    this.limiter = new RateLimiterRedis({
      storeClient: this.redis,
      useRedisPackage: false,
      points: options.points,
      duration: options.durationSeconds,
      keyPrefix: options.keyPrefix ?? 'rl:free',
      insuranceLimiter: new RateLimiterMemory({
        points: options.points,
        duration: options.durationSeconds,
        keyPrefix: `${options.keyPrefix ?? 'rl:free'}:insurance`,
      }),
    });
  }

  async consume(key: string): Promise<RateLimitDecision> {
    try {
      return toDecision(true, await this.limiter.consume(key), this.points);
    } catch (e) {
      if (e instanceof RateLimiterRes) return toDecision(false, e, this.points);
      throw e;
    }
  }

  async health(): Promise<'ok' | 'degraded'> {
    if (this.redis.status !== 'ready') return 'degraded';
    try {
      await this.redis.ping();
      return 'ok';
    } catch {
      return 'degraded';
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
