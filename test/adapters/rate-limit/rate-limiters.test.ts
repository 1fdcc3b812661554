/**
 * What only RedisRateLimiter does (the port's behaviour is test/contract/rate-limiter.contract.ts):
 * one budget shared by two service instances, and Redis outages that must never make a request hang.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RedisRateLimiter } from '../../../src/adapters/rate-limit/redis/redis-rate-limiter.js';
import { REDIS_URL, redisRateLimiter, redisReady } from '../../support/redis.js';
import { describeWithServices, itWithServices } from '../../support/services.js';
import { startTestService } from '../../support/service.js';
import { pollUntil } from '../../support/wait.js';

const open: RedisRateLimiter[] = [];
afterAll(async () => {
  for (const l of open) await l.close();
});

function redis(...args: Parameters<typeof redisRateLimiter>) {
  const l = redisRateLimiter(...args);
  open.push(l);
  return l;
}

describeWithServices('Redis shared by two service instances', () => {
  it('one budget for both', async () => {
    const prefix = `test:${randomUUID()}`;
    const a = redis(3, 60, REDIS_URL, prefix);
    const b = redis(3, 60, REDIS_URL, prefix);
    const sa = await startTestService({ ports: { rateLimiter: a } }, { RATE_LIMIT_FREE_PER_MINUTE: '3' });
    const sb = await startTestService({ ports: { rateLimiter: b } }, { RATE_LIMIT_FREE_PER_MINUTE: '3' });
    try {
      await redisReady(a);
      await redisReady(b);
      const statuses = [];
      for (const url of [sa.url, sb.url, sa.url, sb.url]) statuses.push((await fetch(`${url}/tokens`)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await sa.stop();
      await sb.stop();
    }
  });
});

describe('Redis outages', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  it('a closed port: answers come at once from the insurance limiter, which still enforces the limit', async () => {
    const l = redis(2, 60, 'redis://127.0.0.1:1');
    const started = Date.now();
    const decisions = [await l.consume('x'), await l.consume('x'), await l.consume('x')];
    // At once: nothing waits for a connection (no offline queue). Loose enough for a loaded
    // machine, and still far below a wait for a connection (1 s to time out, retried up to 2 s apart).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(await l.health()).toBe('degraded');
  });

  itWithServices('a Redis that stops answering mid-test: bounded answers, health degraded, recovery when it returns', async () => {
    // A TCP proxy to Redis that can be frozen (it keeps the connection but forwards nothing).
    let frozen = false;
    const sockets: Socket[] = [];
    const proxy = createServer((client) => {
      const upstream = connect(6379, '127.0.0.1');
      sockets.push(client, upstream);
      client.on('data', (d) => {
        if (!frozen) upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (!frozen) client.write(d);
      });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    servers.push(proxy);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as { port: number }).port;
    const l = redis(3, 60, `redis://127.0.0.1:${port}`);
    await redisReady(l);
    expect((await l.consume('y')).allowed).toBe(true);
    expect(await l.health()).toBe('ok');

    frozen = true;
    const started = Date.now();
    const during = [await l.consume('z'), await l.consume('z'), await l.consume('z'), await l.consume('z')];
    // Bounded by the command timeout (4 × 150 ms), where a command on a frozen connection never
    // answers at all; the slack is a loaded machine's.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(during.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(await l.health()).toBe('degraded');

    frozen = false;
    for (const s of sockets) s.destroy(); // the stalled connection is dropped; ioredis reconnects
    await pollUntil(async () => (await l.health()) === 'ok', { stepMs: 100 });
    expect(await l.health()).toBe('ok');
    expect((await l.consume('w')).allowed).toBe(true);
    await l.close();
  });
});
