/**
 * The second table of `npm run bench`: the service over the in-memory stores and the fake
 * facilitator (no database, no chain), so the HTTP and payment layers are measured alone.
 * Each scenario is compared with a baseline run side by side, so machine noise cancels.
 *
 *   free GET  memory limiter / no limiter       target ≥ 0.9   (issue #8)
 *   free GET  Redis limiter  / no limiter       target ≥ 0.5   (issue #8)
 *   paid path with warm detection cache / detection off        cost ≤ 1.05× (issue #7)
 *   free GET  /tokens / a bare Koa handler                     (context)
 */
import { createServer } from 'node:http';
import Koa from 'koa';
import { FakeFacilitator } from '../src/adapters/facilitator/fake/fake-facilitator.js';
import { CachingNetworkDetector } from '../src/adapters/network/caching/caching-network-detector.js';
import { MemoryRateLimiter } from '../src/adapters/rate-limit/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../src/adapters/rate-limit/redis/redis-rate-limiter.js';
import type { RunningService } from '../src/bootstrap/compose.js';
import { TESTNET } from '../src/domain/network.js';
import type { Detection, NetworkDetector } from '../src/ports/network-detector.js';
import { startTestService } from '../test/support/service.js';
import { devAccount, signPayment } from '../test/support/x402-client.js';
import { load, median } from './load.js';

let DURATION = 3_000;
let ROUNDS = 3;
let log: (line: string) => void = console.log;
const CONCURRENCY = 16;
export interface MemoryRow {
  name: string;
  value: number;
  target: string;
}
let rows: MemoryRow[] = [];
const report = (name: string, value: number, target: string) => rows.push({ name, value, target });

async function bareKoa(): Promise<{ url: string; close: () => void }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { success: true, operation: 'list_tokens', data: { items: [], nextCursor: null } };
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

async function freeGets(service: { url: string }) {
  return (await load({ url: `${service.url}/tokens?limit=5`, concurrency: CONCURRENCY, durationMs: DURATION })).rps;
}

async function withService<T>(s: Promise<RunningService>, fn: (s: RunningService) => Promise<T>): Promise<T> {
  const service = await s;
  try {
    return await fn(service);
  } finally {
    await service.stop();
  }
}

const huge = { RATE_LIMIT_FREE_PER_MINUTE: '100000000' };


async function rateLimitBench() {
  const ratios = { koa: [] as number[], memory: [] as number[], redis: [] as number[] };
  // Scenarios are interleaved round by round so drift in machine load hits all of them alike.
  for (let round = 0; round < ROUNDS; round++) {
    const bare = await bareKoa();
    const baseline = await freeGets(bare);
    bare.close();
    const none = await withService(startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '0' }), freeGets);
    const memory = await withService(
      startTestService({ ports: { rateLimiter: new MemoryRateLimiter({ points: 100_000_000, durationSeconds: 60 }) } }, huge),
      freeGets,
    );
    const redisLimiter = new RedisRateLimiter({
      url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      points: 100_000_000,
      durationSeconds: 60,
      keyPrefix: `bench:${Date.now()}`,
    });
    const redis = await withService(startTestService({ ports: { rateLimiter: redisLimiter } }, huge), freeGets);
    await redisLimiter.close();
    log(`[memory] round ${round + 1}: free GET rps bare koa ${baseline.toFixed(0)}, no limiter ${none.toFixed(0)}, memory ${memory.toFixed(0)}, redis ${redis.toFixed(0)}`);
    ratios.koa.push(none / baseline);
    ratios.memory.push(memory / none);
    ratios.redis.push(redis / none);
  }
  report('free GET /tokens vs bare Koa handler (median)', median(ratios.koa), '(context)');
  report('free GET, memory limiter / no limiter (median)', median(ratios.memory), 'target ≥ 0.90');
  report('free GET, Redis limiter / no limiter (median)', median(ratios.redis), 'target ≥ 0.50');
}

/** A detector that answers instantly, standing in for "detection off" (no RPC, no cache). */
class Off implements NetworkDetector {
  async detect(): Promise<Detection> {
    return { network: TESTNET, reason: 'off', checkedAt: new Date() };
  }
}

async function paidBench() {
  // Paid token_info calls, each with its own pre-signed payment, so every request is a full
  // verify → claim → settle → apply round.
  const wallet = devAccount(5);
  const run = async (detector: NetworkDetector) =>
    withService(
      startTestService({ ports: { detector, facilitator: new FakeFacilitator({ clock: { now: () => new Date() }, defaultBalance: 10n ** 15n }) } }),
      async (service) => {
        const post = (body: string, headers: Record<string, string> = {}) =>
          fetch(`${service.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers }, body });
        const challenge = await post(JSON.stringify({ name: 'Bench', symbol: 'BENCH' }));
        const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString());
        const n = 400;
        const signatures = await Promise.all(Array.from({ length: n }, () => signPayment(wallet, required)));
        const r = await load({
          url: `${service.url}/tokens`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: () => JSON.stringify({ name: 'Bench', symbol: 'BENCH' }),
          headersFor: (i) => ({ 'payment-signature': signatures[i % n]! }),
          concurrency: 8,
          durationMs: DURATION,
        });
        return r.rps;
      },
    );
  const costs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const off = await run(new Off());
    // The cached detector wraps one that costs 50 ms a call (an RPC round); warmed once, every
    // paid request then hits the cache.
    const slow: NetworkDetector = { detect: async () => (await new Promise((r) => setTimeout(r, 50)), new Off().detect()) };
    const cached = new CachingNetworkDetector(slow, { clock: { now: () => new Date() } });
    await cached.detect(wallet.address);
    const warm = await run(cached);
    log(`[memory] round ${round + 1}: paid create rps detection off ${off.toFixed(0)}, warm cache ${warm.toFixed(0)}`);
    costs.push(off / warm);
  }
  report('paid path cost, warm detection cache / detection off (median)', median(costs), 'target ≤ 1.05');
}

export async function benchMemory(o: { rounds: number; durationMs: number; log: (line: string) => void }): Promise<MemoryRow[]> {
  DURATION = o.durationMs;
  ROUNDS = o.rounds;
  log = o.log;
  rows = [];
  await rateLimitBench();
  await paidBench();
  return rows;
}
