/** The machine's Redis for tests: REDIS_URL, or the local default; each limiter gets its own key prefix. */
import { randomUUID } from 'node:crypto';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis/redis-rate-limiter.js';
import { REDIS_URL } from './service-urls.js';
import { waitFor } from './wait.js';

export { REDIS_URL };

/** A RedisRateLimiter under a fresh key prefix (unless one is given, to share a budget); the caller closes it. */
export function redisRateLimiter(points: number, durationSeconds = 60, url = REDIS_URL, prefix = `test:${randomUUID()}`): RedisRateLimiter {
  return new RedisRateLimiter({ url, points, durationSeconds, keyPrefix: prefix, commandTimeoutMs: 150 });
}

/** Until the connection is up: before it, answers come from the insurance limiter and health is degraded. */
export async function redisReady(l: RedisRateLimiter): Promise<void> {
  await waitFor('the Redis connection ready', () => l.redis.status === 'ready');
}
