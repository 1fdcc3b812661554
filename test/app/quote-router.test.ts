/**
 * The quote router's policy over scripted sources: the median of fresh answers within the spread,
 * staleness, the 15 s cache and request coalescing, the breaker (closed → open → half-open probe),
 * 429 Retry-After, per-source token buckets with bounded queues, the deadline, and 503 — never a
 * guessed price — when nothing fresh is left. The clock is a FakeClock; nothing here is timed.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { statusOf } from '../../src/app/kit/error-status.js';
import { assetAmountFor, bookedUsdValue, usdcDepeg } from '../../src/app/pricing/asset-pricing.js';
import type { ProviderLimit } from '../../src/app/pricing/price-board.js';
import { QuoteRouter, type QuoteRouterOptions } from '../../src/app/pricing/quote-router.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import { formatUsdPrice, parseUsdPrice } from '../../src/domain/usd-price.js';
import { QuoteFailure } from '../../src/ports/quote-provider.js';
import { gate, ScriptedQuoteProvider, type Script } from '../support/scripted-quote-provider.js';

const ROOMY: ProviderLimit = { points: 1_000, durationSeconds: 60, maxQueueSize: 100 };

function setup(scripts: Record<string, Script>, over: Partial<QuoteRouterOptions> & { limits?: Record<string, ProviderLimit>; timeoutMs?: number } = {}) {
  const clock = new FakeClock('2026-11-23T12:00:00.000Z');
  const sources = Object.entries(scripts).map(([name, script]) => new ScriptedQuoteProvider(name, clock, script));
  const router = new QuoteRouter({
    clock,
    providers: sources.map((provider) => ({ provider, limit: over.limits?.[provider.name] ?? ROOMY, timeoutMs: over.timeoutMs ?? 1_000 })),
    ...over,
  });
  const source = (name: string) => sources.find((s) => s.name === name)!;
  const statuses = (asset: 'EURC' | 'USDC' | 'ETH' = 'EURC', network: Network = PRODUCTION) =>
    router.lastRound(asset, network)!.answers.map((a) => `${a.provider}:${a.status}${a.reason ? `:${a.reason}` : ''}`);
  return { clock, router, source, statuses };
}

async function unavailable(p: Promise<unknown>): Promise<ServiceUnavailable> {
  const e = await p.then(
    () => new Error('expected a 503'),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ServiceUnavailable);
  return e as ServiceUnavailable;
}

describe('the median rule', () => {
  it('answers the median of the fresh answers and names the sources used', async () => {
    const { router } = setup({ a: { price: '1.0800' }, b: { price: '1.0810' }, c: { price: '1.0790' } });
    const q = await router.usdPrice('EURC', PRODUCTION);
    expect([formatUsdPrice(q.price), q.provider, q.asset, q.network]).toEqual(['1.08', 'median(a,b,c)', 'EURC', PRODUCTION]);
  });

  it('drops an answer farther than the spread from the median, then takes the median of the rest', async () => {
    const { router, statuses } = setup({ a: { price: '1.08' }, b: { price: '1.0801' }, c: { price: '1.20' } });
    const q = await router.usdPrice('EURC', PRODUCTION);
    expect([formatUsdPrice(q.price), q.provider]).toEqual(['1.08005', 'median(a,b)']);
    expect(statuses()).toEqual(['a:ok', 'b:ok', 'c:outlier']);
  });

  it('keeps an answer exactly at the spread and drops one just beyond it', async () => {
    // median of (1.08, 1.08, 1.0908) is 1.08; 1.0908 is exactly 100 bps away
    const at = setup({ a: { price: '1.08' }, b: { price: '1.08' }, c: { price: '1.0908' } });
    await at.router.usdPrice('EURC', PRODUCTION);
    expect(at.statuses()).toEqual(['a:ok', 'b:ok', 'c:ok']);
    const beyond = setup({ a: { price: '1.08' }, b: { price: '1.08' }, c: { price: '1.09081' } });
    await beyond.router.usdPrice('EURC', PRODUCTION);
    expect(beyond.statuses()).toEqual(['a:ok', 'b:ok', 'c:outlier']);
  });

  it('sources that disagree beyond the spread give no price at all, not one of theirs', async () => {
    const { router, statuses } = setup({ a: { price: '1.00' }, b: { price: '1.10' } });
    await unavailable(router.usdPrice('EURC', PRODUCTION));
    expect(statuses()).toEqual(['a:outlier', 'b:outlier']);
  });

  it('drops an answer older than its source allows, and one from the future', async () => {
    const { router, statuses } = setup({ old: { price: '1.50', ageMs: 61_000 }, future: { price: '1.40', ageMs: -120_000 }, fresh: { price: '1.08' } });
    expect(formatUsdPrice((await router.usdPrice('EURC', PRODUCTION)).price)).toBe('1.08');
    expect(statuses()).toEqual(['old:stale', 'future:stale', 'fresh:ok']);
  });

  it('an answer cached past its source\'s staleness bound is stale on the next ask', async () => {
    const { router, clock, statuses } = setup({ a: { price: '1.08', ageMs: 50_000 }, b: { price: '1.08' } }, { cacheMs: 15_000 });
    await router.usdPrice('EURC', PRODUCTION);
    clock.advance(11_000); // still cached, but now 61 s old
    await router.usdPrice('EURC', PRODUCTION);
    expect(statuses()).toEqual(['a:stale', 'b:ok']);
  });

  it('the observedAt of the price is that of its oldest answer', async () => {
    const { router, clock } = setup({ a: { price: '1.08', ageMs: 30_000 }, b: { price: '1.08', ageMs: 5_000 } });
    const q = await router.usdPrice('EURC', PRODUCTION);
    expect(q.observedAt.getTime()).toBe(clock.now().getTime() - 30_000);
  });
});

describe('no fresh answer', () => {
  it('is 503 SERVICE_UNAVAILABLE with a Retry-After, when every source fails', async () => {
    const { router, statuses } = setup({ a: { fail: 'unavailable' }, b: { fail: 'malformed' }, c: { price: '1.08', ageMs: 3_600_000 } });
    const e = await unavailable(router.usdPrice('EURC', TESTNET));
    expect([e.code, statusOf(e.code), e.retryAfterSeconds]).toEqual(['SERVICE_UNAVAILABLE', 503, 5]);
    expect(e.details).toEqual({ asset: 'EURC', network: TESTNET });
    expect(statuses('EURC', TESTNET)).toEqual(['a:failed:unavailable', 'b:failed:malformed', 'c:stale']);
  });

  it('tells the caller to come back when the sources will be asked again', async () => {
    const { router } = setup({ a: { fail: 'rate-limited', retryAfterMs: 30_000 }, b: { fail: 'rate-limited', retryAfterMs: 45_000 } });
    expect((await unavailable(router.usdPrice('EURC', PRODUCTION))).retryAfterSeconds).toBe(30);
  });

  it('an asset no source prices is "unsupported", not 503', async () => {
    const clock = new FakeClock();
    const router = new QuoteRouter({ clock, providers: [{ provider: new ScriptedQuoteProvider('a', clock, { price: '1' }, { assets: ['USDC'] }), limit: ROOMY, timeoutMs: 100 }] });
    const e = await router.usdPrice('EURC', PRODUCTION).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(QuoteFailure);
    expect((e as QuoteFailure).kind).toBe('unsupported');
  });
});

describe('the cache and coalescing', () => {
  it('200 concurrent asks for one price make one call per source and get one price', async () => {
    const held = gate();
    const { router, source } = setup({ a: { price: '1.08', gate: held.promise }, b: { price: '1.0802', gate: held.promise } });
    const asks = Array.from({ length: 200 }, () => router.usdPrice('EURC', PRODUCTION));
    held.open();
    const quotes = await Promise.all(asks);
    expect([source('a').calls, source('b').calls]).toEqual([1, 1]);
    expect(new Set(quotes.map((q) => formatUsdPrice(q.price)))).toEqual(new Set(['1.0801']));
  });

  it('reuses answers for 15 s, then asks again', async () => {
    const { router, clock, source } = setup({ a: { price: '1.08' } });
    await router.usdPrice('EURC', PRODUCTION);
    clock.advance(14_999);
    await router.usdPrice('EURC', PRODUCTION);
    expect(source('a').calls).toBe(1);
    clock.advance(1);
    await router.usdPrice('EURC', PRODUCTION);
    expect(source('a').calls).toBe(2);
  });

  it('one call serves both networks for an off-chain source; an on-chain one is asked per network', async () => {
    const clock = new FakeClock();
    const offChain = new ScriptedQuoteProvider('api', clock, { price: '1.08' });
    const onChain = new ScriptedQuoteProvider('feed', clock, { price: '1.08' }, { networkIndependent: false });
    const router = new QuoteRouter({ clock, providers: [offChain, onChain].map((provider) => ({ provider, limit: ROOMY, timeoutMs: 100 })) });
    for (const network of [PRODUCTION, TESTNET] as const) expect((await router.usdPrice('EURC', network)).network).toBe(network);
    expect([offChain.calls, onChain.calls]).toEqual([1, 2]);
  });

  it('failures are not cached: the next ask tries again', async () => {
    const { router, source } = setup({ a: { fail: 'unavailable' }, b: { price: '1.08' } });
    await router.usdPrice('EURC', PRODUCTION);
    await router.usdPrice('EURC', PRODUCTION);
    expect([source('a').calls, source('b').calls]).toEqual([2, 1]);
  });
});

describe('the circuit breaker', () => {
  it('opens after 3 failures in a row, lets one probe through after 30 s, and closes when it succeeds', async () => {
    const { router, clock, source, statuses } = setup({ flaky: { fail: 'unavailable' }, steady: { price: '1.08' } }, { breaker: { failures: 3, openMs: 30_000 } });
    for (let i = 0; i < 3; i++) await router.usdPrice('EURC', PRODUCTION);
    expect(source('flaky').calls).toBe(3);
    expect((await router.providerStates())[0]!.breaker).toMatchObject({ state: 'open', consecutiveFailures: 3 });

    await router.usdPrice('EURC', PRODUCTION);
    expect(source('flaky').calls).toBe(3); // open: not called
    expect(statuses()).toEqual(['flaky:skipped:circuit-open', 'steady:ok']);

    clock.advance(30_000); // half-open: one probe, which fails → open again
    expect((await router.providerStates())[0]!.breaker.state).toBe('half-open');
    await router.usdPrice('EURC', PRODUCTION);
    expect(source('flaky').calls).toBe(4);
    await router.usdPrice('EURC', PRODUCTION);
    expect(source('flaky').calls).toBe(4);
    expect((await router.providerStates())[0]!.breaker.state).toBe('open');

    clock.advance(30_000); // the next probe succeeds → closed, counter reset
    source('flaky').script = { price: '1.0801' };
    await router.usdPrice('EURC', PRODUCTION);
    expect(source('flaky').calls).toBe(5);
    expect((await router.providerStates())[0]!.breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0, openUntil: null });
    expect(statuses()).toEqual(['flaky:ok', 'steady:ok']);
  });

  it('half-open lets exactly one probe through while it is under way', async () => {
    const held = gate();
    const { router, clock, source, statuses } = setup({ flaky: { fail: 'timeout' }, steady: { price: '1' } }, { breaker: { failures: 1, openMs: 10_000 } });
    await router.usdPrice('EURC', PRODUCTION); // opens
    clock.advance(10_000);
    source('flaky').script = { price: '1', gate: held.promise };
    const probe = router.usdPrice('EURC', PRODUCTION); // the probe, held
    await router.usdPrice('USDC', PRODUCTION); // another price meanwhile: no second probe
    expect(statuses('USDC')).toEqual(['flaky:skipped:probe-in-flight', 'steady:ok']);
    held.open();
    await probe;
    expect(source('flaky').calls).toBe(2);
  });

  it('a 429 does not count against the breaker: the source is skipped until Retry-After', async () => {
    const { router, clock, source, statuses } = setup({ busy: { fail: 'rate-limited', retryAfterMs: 20_000 }, steady: { price: '1.08' } }, { breaker: { failures: 1, openMs: 60_000 } });
    await router.usdPrice('EURC', PRODUCTION);
    expect((await router.providerStates())[0]).toMatchObject({ breaker: { state: 'closed' }, rateLimitedUntil: new Date(clock.now().getTime() + 20_000) });
    clock.advance(19_999);
    await router.usdPrice('USDC', PRODUCTION);
    expect(statuses('USDC')).toEqual(['busy:skipped:rate-limited', 'steady:ok']);
    expect(source('busy').calls).toBe(1);
    clock.advance(1);
    source('busy').script = { price: '1.08' };
    await router.usdPrice('ETH', PRODUCTION);
    expect(source('busy').calls).toBe(2);
  });

  it('a 429 without Retry-After leaves the source alone for the default 60 s', async () => {
    const { router, clock, source } = setup({ busy: { fail: 'rate-limited' }, steady: { price: '1.08' } });
    await router.usdPrice('EURC', PRODUCTION);
    clock.advance(59_999);
    await router.usdPrice('USDC', PRODUCTION);
    expect(source('busy').calls).toBe(1);
    clock.advance(1);
    await router.usdPrice('ETH', PRODUCTION);
    expect(source('busy').calls).toBe(2);
  });
});

describe('limits, timeouts and the deadline', () => {
  it('a source over its token bucket with a full queue is skipped without a call', async () => {
    const { router, clock, source, statuses } = setup(
      { tight: { price: '1.08' }, steady: { price: '1.08' } },
      { limits: { tight: { points: 2, durationSeconds: 3_600, maxQueueSize: 0 } } },
    );
    for (let i = 0; i < 5; i++) {
      await router.usdPrice('EURC', PRODUCTION);
      clock.advance(15_000); // past the cache, so every ask wants a new call
    }
    expect([source('tight').calls, source('steady').calls]).toEqual([2, 5]);
    expect(statuses()).toEqual(['tight:skipped:queue-full', 'steady:ok']);
    expect((await router.providerStates())[0]!.limit).toEqual({ points: 2, durationSeconds: 3_600, maxQueueSize: 0, remaining: 0 });
  });

  it('an ask queued for a token longer than the timeout gives up without calling later', async () => {
    const { router, clock, source, statuses } = setup(
      { tight: { price: '1.08' }, steady: { price: '1.08' } },
      { limits: { tight: { points: 1, durationSeconds: 3_600, maxQueueSize: 5 } }, timeoutMs: 50 },
    );
    await router.usdPrice('EURC', PRODUCTION);
    clock.advance(15_000);
    await router.usdPrice('EURC', PRODUCTION);
    expect(statuses()).toEqual(['tight:skipped:queue-timeout', 'steady:ok']);
    expect(source('tight').calls).toBe(1);
  });

  it('a source that hangs is cut off at its timeout and counts as a failure', async () => {
    const { router, source, statuses } = setup({ slow: { hang: true }, steady: { price: '1.08' } }, { timeoutMs: 50 });
    expect(formatUsdPrice((await router.usdPrice('EURC', PRODUCTION)).price)).toBe('1.08');
    expect(statuses()).toEqual(['slow:failed:timeout', 'steady:ok']);
    expect((await router.providerStates())[0]!.breaker.consecutiveFailures).toBe(1);
    expect(source('slow').calls).toBe(1);
  });

  it('the ask answers at its deadline with what has come in; a late answer still fills the cache', async () => {
    const held = gate();
    const { router, source, statuses } = setup({ late: { price: '1.0802', gate: held.promise }, steady: { price: '1.08' } }, { deadlineMs: 50, timeoutMs: 60_000 });
    expect(formatUsdPrice((await router.usdPrice('EURC', PRODUCTION)).price)).toBe('1.08');
    expect(statuses()).toEqual(['late:failed:deadline', 'steady:ok']);
    held.open();
    await new Promise((r) => setImmediate(r));
    expect(formatUsdPrice((await router.usdPrice('EURC', PRODUCTION)).price)).toBe('1.0801');
    expect(source('late').calls).toBe(1);
  });
});

describe('pricing in the payment assets', () => {
  const floor = parseUsdPrice('0.98');

  it('EURC: the USD price at the quote, rounded up to the unit; booked back at no more than the USD price', async () => {
    const { router } = setup({ a: { price: '1.08' } });
    const paid = await assetAmountFor(router, 'EURC', TESTNET, 10_000_000n, floor);
    expect([paid.amount, paid.atPar, formatUsdPrice(paid.quote.price)]).toEqual([9_259_260n, false, '1.08']);
    expect(bookedUsdValue(paid)).toBe(10_000_000n);
  });

  it('USDC at or above the floor is taken 1:1', async () => {
    const { router } = setup({ a: { price: '0.98' } });
    const paid = await assetAmountFor(router, 'USDC', PRODUCTION, 1_000_000n, floor);
    expect([paid.amount, paid.atPar]).toEqual([1_000_000n, true]);
    expect((await usdcDepeg(router, PRODUCTION, floor)).belowFloor).toBe(false);
  });

  it('USDC below the floor is priced from its quote', async () => {
    const { router } = setup({ a: { price: '0.97' } });
    expect((await usdcDepeg(router, PRODUCTION, floor)).belowFloor).toBe(true);
    const paid = await assetAmountFor(router, 'USDC', PRODUCTION, 1_000_000n, floor);
    expect([paid.amount, paid.atPar]).toEqual([1_030_928n, false]);
    expect(bookedUsdValue(paid)).toBe(1_000_000n);
  });

  it('no quote is 503 for a USDC payment too: the depeg cannot be ruled out', async () => {
    const { router } = setup({ a: { fail: 'unavailable' } });
    await unavailable(assetAmountFor(router, 'USDC', PRODUCTION, 1_000_000n, floor));
  });
});
