/**
 * Kept answers before the framework (src/adapters/http/koa/kept-answers.ts, decision 0052): a
 * plain GET of a token whose view the change feed vouches for is answered on Node's request with
 * the very bytes and headers Koa's route sends — counted once against the free budget, observed
 * and logged like any request — and everything else goes on to Koa untouched. `GET /health` is
 * answered there too when its report is a 200 (decision 0062).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keptAnswers } from '../../src/adapters/http/koa/kept-answers.js';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory/memory-rate-limiter.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { getToken } from '../../src/app/tokens/get-token.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { parseExposition } from '../contract/metrics.contract.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

/**
 * Real time, or held still while a test reads a kept view: a view is served for a second after it
 * was built (TokenViewCache's maxAgeMs), which a loaded machine can spend between a test's
 * warm-up and its request.
 */
class HoldableClock extends ShiftableClock {
  heldAt: Date | null = null;
  override now(): Date {
    return this.heldAt ?? super.now();
  }
}

const wallet = devAccount(7);
const logger = new MemoryLogger('info');
const clock = new HoldableClock();
let service: RunningService;
let tokenId: string;
/** The service's own application behind a bare Node server: the lane in front of a `next` that only records. */
let lane: { url: string; server: Server; handedOn: string[] };
/** What the lane's /health asks: the application's report unless a test says otherwise. */
let laneHealth: () => Promise<{ report: object; required: boolean }>;

const BUDGET = 30;

beforeAll(async () => {
  service = await startTestService({ ports: { logger, clock } }, { RATE_LIMIT_FREE_PER_MINUTE: String(BUDGET) });
  const created = await payingFetch(wallet)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ name: 'Kept', symbol: 'KEPT' }),
  });
  expect(created.status).toBe(201);
  tokenId = (await json(created)).data.tokenId;
  const { application } = service;
  const answer = keptAnswers({
    deps: application.deps,
    reads: application.reads,
    ids: application.deps.ids,
    logger: application.logger,
    metrics: application.metrics,
    trustProxy: { kind: 'none' },
    health: () => laneHealth(),
  });
  laneHealth = () => application.health();
  const handedOn: string[] = [];
  const next = (req: IncomingMessage, res: ServerResponse) => {
    handedOn.push(`${req.method} ${req.url}`);
    res.end('koa');
  };
  const server = createServer((req, res) => void answer(req, res, next));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  lane = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, handedOn };
});
afterAll(async () => {
  await new Promise((r) => lane.server.close(r));
  await service.stop();
});
afterEach(() => {
  clock.heldAt = null;
});

/**
 * Holds the clock still for the rest of the test and reads the token until its view is kept (a
 * first read builds it; one the change feed announced a change for while it was built — a
 * worker's commit on a loaded machine — is not kept, and the next read builds it again). The reads
 * are the route's use case itself, not HTTP requests: the free budget a test before spent would
 * refuse those, and a refused request builds nothing.
 */
async function warm(): Promise<void> {
  clock.heldAt = clock.now();
  const { deps } = service.application;
  const kept = () => service.application.reads.find((r) => r.operation === 'get_token')!.kept!(deps, { tokenId });
  await waitFor('the token view kept', async () => kept() ?? (await getToken(deps, tokenId), kept()));
}

describe('kept answers', () => {
  it('are the bytes and headers Koa sends for the same read', async () => {
    await warm();
    // The lane asks the entry for its kept answer; Koa's route never does: counted, the lane answered.
    const entry = service.application.reads.find((r) => r.operation === 'get_token')!;
    const kept = entry.kept!;
    let asked = 0;
    entry.kept = (deps, input) => (asked++, kept(deps, input));
    let viaLane: Response;
    let viaKoa: Response;
    try {
      viaLane = await fetch(`${service.url}/tokens/${tokenId}`, { headers: { 'x-request-id': 'kept-1' } });
      expect(asked).toBeGreaterThan(0);
      asked = 0;
      // Cache-Control: no-cache is Koa's (a fresh read): with nothing changed, the same view.
      viaKoa = await fetch(`${service.url}/tokens/${tokenId}`, { headers: { 'x-request-id': 'koa-1', 'cache-control': 'no-cache' } });
      expect(asked).toBe(0);
    } finally {
      entry.kept = kept;
    }
    expect(viaLane.status).toBe(200);
    expect(await viaLane.text()).toBe(await viaKoa.text());
    const names = (r: Response) => [...r.headers.keys()].filter((k) => k !== 'date').sort();
    expect(names(viaLane)).toEqual(names(viaKoa));
    for (const h of ['api-version', 'vary', 'content-type', 'content-length', 'ratelimit-policy']) expect(viaLane.headers.get(h)).toBe(viaKoa.headers.get(h));
    expect(viaLane.headers.get('x-request-id')).toBe('kept-1');
    expect(viaLane.headers.get('vary')).toBe('Origin');
  });

  it('answer only a plain GET of a kept view; everything else goes on to Koa as it came', async () => {
    await warm();
    const served = await fetch(`${lane.url}/tokens/${tokenId}`);
    expect(served.status).toBe(200);
    expect((await json(served)).data.tokenId).toBe(tokenId);
    expect(served.headers.get('x-request-id')).toMatch(/^req_/);
    expect(lane.handedOn).toEqual([]);

    const handedOn = [
      fetch(`${lane.url}/tokens/${tokenId}?fresh=1`),
      fetch(`${lane.url}/tokens/${tokenId}`, { headers: { origin: 'https://elsewhere.example' } }),
      fetch(`${lane.url}/tokens/${tokenId}`, { headers: { 'cache-control': 'no-cache' } }),
      fetch(`${lane.url}/tokens/${tokenId}`, { method: 'POST' }),
      fetch(`${lane.url}/tokens/${tokenId}/`),
      fetch(`${lane.url}/tokens/tok_00000000000000000000000000`),
      fetch(`${lane.url}/tokens/not-a-token`),
      fetch(`${lane.url}/tokens/${tokenId.slice(0, 4)}%5F${tokenId.slice(5)}`),
      fetch(`${lane.url}/tokens`),
    ];
    for (const res of await Promise.all(handedOn)) expect(await res.text()).toBe('koa');
    expect(lane.handedOn).toHaveLength(handedOn.length);

    // An entry that fails to say what it keeps is no answer here: Koa's route runs (and reports it).
    const entry = service.application.reads.find((r) => r.operation === 'get_token')!;
    const kept = entry.kept!;
    entry.kept = () => {
      throw new Error('broken');
    };
    try {
      expect(await (await fetch(`${lane.url}/tokens/${tokenId}`)).text()).toBe('koa');
    } finally {
      entry.kept = kept;
    }
  });

  it("GET /health: the bytes and headers Koa sends, counted and observed; a 503 and anything not plain are Koa's", async () => {
    const before = parseExposition(await (await fetch(`${service.url}/metrics`)).text());
    const count = (m: Map<string, number>) => m.get('launchpad_http_request_duration_seconds_count{method="GET",route="/health",status="200"}') ?? 0;
    const viaLane = await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'health-kept' } });
    // A query string is Koa's: its route answers the same report.
    const viaKoa = await fetch(`${service.url}/health?via=koa`, { headers: { 'x-request-id': 'health-koa' } });
    expect(viaLane.status).toBe(200);
    const [lane200, koa200] = [await json(viaLane), await json(viaKoa)];
    expect(lane200).toMatchObject({ success: true, operation: 'health', data: { status: 'ok', checks: { database: 'ok' } } });
    expect(lane200).toEqual(koa200);
    const names = (r: Response) => [...r.headers.keys()].filter((k) => k !== 'date').sort();
    expect(names(viaLane)).toEqual(names(viaKoa));
    for (const h of ['api-version', 'vary', 'content-type', 'ratelimit-policy']) expect(viaLane.headers.get(h)).toBe(viaKoa.headers.get(h));
    expect(viaLane.headers.get('x-request-id')).toBe('health-kept');
    // Counted against the free budget as Koa counts it: one each.
    const left = (r: Response) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
    expect(left(viaKoa)).toBe(left(viaLane) - 1);
    const line = logger.lines.find((l) => l.message === 'request' && l.fields.requestId === 'health-kept');
    expect(line?.fields).toMatchObject({ method: 'GET', path: '/health', route: '/health', status: 200 });
    const after = parseExposition(await (await fetch(`${service.url}/metrics`)).text());
    expect(count(after)).toBe(count(before) + 2);

    // The lane answers /health itself; a report that is not a 200, or that fails, goes on to Koa (its 503 and Retry-After).
    lane.handedOn.length = 0;
    const served = await fetch(`${lane.url}/health`);
    expect(served.status).toBe(200);
    expect((await json(served)).operation).toBe('health');
    laneHealth = async () => ({ report: { status: 'degraded' }, required: false });
    try {
      expect(await (await fetch(`${lane.url}/health`)).text()).toBe('koa');
      laneHealth = () => Promise.reject(new Error('broken'));
      expect(await (await fetch(`${lane.url}/health`)).text()).toBe('koa');
    } finally {
      laneHealth = () => service.application.health();
    }
    for (const res of await Promise.all([fetch(`${lane.url}/health/`), fetch(`${lane.url}/health`, { method: 'HEAD' }), fetch(`${lane.url}/health`, { headers: { origin: 'https://elsewhere.example' } })])) {
      await res.text();
    }
    expect(lane.handedOn).toEqual(['GET /health', 'GET /health', 'GET /health/', 'HEAD /health', 'GET /health']);
  });

  it('are counted once against the free budget, with its headers; the one it refuses is refused by Koa with the decision taken', async () => {
    await warm();
    const remaining = async () => {
      const res = await fetch(`${service.url}/tokens/${tokenId}`);
      return { status: res.status, left: /r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1], body: await json(res) };
    };
    const first = await remaining();
    expect(first.status).toBe(200);
    const second = await remaining();
    expect(Number(second.left)).toBe(Number(first.left) - 1);
    let last = second;
    for (let i = 0; i < BUDGET && last.status === 200; i++) last = await remaining();
    expect(last.status).toBe(429);
    expect(last.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', details: { limit: BUDGET } } });
  });

  it('a count whose store fails after its increment landed is not made again by Koa: the request fails there, counted once', async () => {
    const memory = new MemoryRateLimiter({ points: 1_000, durationSeconds: 60 });
    let failing = false;
    let counts = 0;
    // Counts, then fails: a store whose answer was lost after the increment was made.
    const limiter: RateLimiter = {
      consume: async (key) => {
        counts++;
        const decision = await memory.consume(key);
        if (failing) throw new Error('the store answered too late');
        return decision;
      },
      health: () => memory.health(),
      close: () => memory.close(),
    };
    const own = await startTestService({ ports: { rateLimiter: limiter } }, { RATE_LIMIT_FREE_PER_MINUTE: '1000' });
    try {
      const created = await payingFetch(wallet)(`${own.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify({ name: 'Counted', symbol: 'CNTD' }),
      });
      const id = (await json(created)).data.tokenId;
      expect((await fetch(`${own.url}/tokens/${id}`)).status).toBe(200); // the view is kept from here on
      expect((await fetch(`${own.url}/tokens/${id}`)).headers.get('ratelimit')).toMatch(/r=\d+/);
      failing = true;
      counts = 0;
      const res = await fetch(`${own.url}/tokens/${id}`);
      expect(res.status).toBe(500);
      // The error envelope, as Koa's limiter answers any store failure.
      expect(await json(res)).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
      expect(counts).toBe(1);
    } finally {
      await own.stop();
    }
  });

  it('are observed and logged as any request: the route template, the status, the request id', async () => {
    await warm();
    const before = parseExposition(await (await fetch(`${service.url}/metrics`)).text());
    const count = (m: Map<string, number>) => m.get('launchpad_http_request_duration_seconds_count{method="GET",route="/tokens/:id",status="200"}') ?? 0;
    await fetch(`${lane.url}/tokens/${tokenId}`, { headers: { 'x-request-id': 'kept-logged' } });
    const after = parseExposition(await (await fetch(`${service.url}/metrics`)).text());
    expect(count(after)).toBe(count(before) + 1);
    const line = logger.lines.find((l) => l.message === 'request' && l.fields.requestId === 'kept-logged');
    expect(line?.fields).toMatchObject({ method: 'GET', path: `/tokens/${tokenId}`, route: '/tokens/:id', status: 200, client: '127.0.0.1' });
  });

  it("a /health that is not a 200 is Koa's: 503 with Retry-After, counted once against the budget", async () => {
    const store = new MemoryUnitOfWork();
    let down = false;
    const uow: UnitOfWork = { run: (w) => (down ? Promise.reject(new Error('the database is down')) : store.run(w)), transaction: (w) => store.transaction(w), close: () => store.close() };
    const clock = new ShiftableClock();
    const own = await startTestService({ ports: { uow, clock } }, { RATE_LIMIT_FREE_PER_MINUTE: '30' });
    try {
      const left = (r: Response) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
      const up = await fetch(`${own.url}/health`);
      expect(up.status).toBe(200);
      down = true;
      clock.offsetMs += 1_000; // the next round of probes
      const res = await fetch(`${own.url}/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await json(res)).toMatchObject({ success: true, operation: 'health', data: { checks: { database: 'down' } } });
      expect(left(res)).toBe(left(up) - 1);
    } finally {
      await own.stop();
    }
  });
});
