/** The RateLimiter contract on Redis (the machine's; every limiter under its own key prefix). */
import { afterAll } from 'vitest';
import type { RedisRateLimiter } from '../../src/adapters/rate-limit/redis/redis-rate-limiter.js';
import { redisRateLimiter, redisReady } from '../support/redis.js';
import { describeWithServices } from '../support/services.js';
import { rateLimiterContract } from './rate-limiter.contract.js';

const open: RedisRateLimiter[] = [];
afterAll(async () => {
  for (const l of open) await l.close();
});

describeWithServices('Redis', () => {
  rateLimiterContract('RedisRateLimiter', async ({ points, durationSeconds }) => {
    const l = redisRateLimiter(points, durationSeconds);
    open.push(l);
    await redisReady(l);
    return l;
  });
});
