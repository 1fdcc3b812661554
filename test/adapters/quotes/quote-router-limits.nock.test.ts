/**
 * The router over the real HTTP adapters, their APIs simulated with nock and every call counted:
 * 200 concurrent asks for one price make one call per source; 200 asks spread over many cache
 * periods never make more calls to a source than its token bucket allows; a 429 with Retry-After
 * keeps the router away from that source; and with every source down the answer is 503.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/adapters/clock/fake/fake-clock.js';
import { CoinbaseQuoteProvider } from '../../../src/adapters/quotes/coinbase/coinbase-quote-provider.js';
import { CoinGeckoQuoteProvider } from '../../../src/adapters/quotes/coingecko/coingecko-quote-provider.js';
import { PYTH_FEEDS, PythQuoteProvider } from '../../../src/adapters/quotes/pyth/pyth-quote-provider.js';
import type { ProviderLimit } from '../../../src/app/pricing/price-board.js';
import { QuoteRouter } from '../../../src/app/pricing/quote-router.js';
import { ServiceUnavailable } from '../../../src/domain/errors.js';
import { ALL_NETWORKS, PRODUCTION } from '../../../src/domain/network.js';
import { formatUsdPrice, type PricedAsset } from '../../../src/domain/usd-price.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const PRICES: Record<PricedAsset, string> = { USDC: '1.0001', EURC: '1.0842', ETH: '3012.5' };
const GECKO_IDS: Record<string, PricedAsset> = { 'usd-coin': 'USDC', 'euro-coin': 'EURC', ethereum: 'ETH' };
const PYTH_IDS = Object.fromEntries(Object.entries(PYTH_FEEDS).map(([asset, id]) => [id, asset as PricedAsset]));

/** Each API answering every asset, counting the calls it gets; `status` can turn it into a 429/503. */
function apis(clock: FakeClock) {
  const calls = { coinbase: 0, coingecko: 0, pyth: 0 };
  const down: Partial<Record<keyof typeof calls, [number, Record<string, string>]>> = {};
  const nowS = () => Math.floor(clock.now().getTime() / 1000);
  // nock 15 hands a reply function the request (a fetch Request), not its path.
  const pathOf = (req: Request) => new URL(req.url).pathname + new URL(req.url).search;
  const answer = (name: keyof typeof calls, body: () => string) =>
    function () {
      calls[name] += 1;
      const failure = down[name];
      return failure ? [failure[0], '{"error":"no"}', failure[1]] : [200, body(), { 'content-type': 'application/json' }];
    };
  nock('http://coinbase.test')
    .get(/\/v2\/prices\/\w+-USD\/spot/)
    .reply(function (req: Request) {
      const asset = pathOf(req).split('/')[3]!.split('-')[0] as PricedAsset;
      return answer('coinbase', () => JSON.stringify({ data: { amount: PRICES[asset], base: asset, currency: 'USD' } }))() as never;
    })
    .persist();
  nock('http://coingecko.test')
    .get(/\/api\/v3\/simple\/price/)
    .reply(function (req: Request) {
      const id = new URLSearchParams(pathOf(req).split('?')[1]).get('ids')!;
      return answer('coingecko', () => `{"${id}":{"usd":${PRICES[GECKO_IDS[id]!]},"last_updated_at":${nowS()}}}`)() as never;
    })
    .persist();
  nock('http://hermes.test')
    .get(/\/v2\/updates\/price\/latest/)
    .reply(function (req: Request) {
      const id = decodeURIComponent(pathOf(req)).split('ids[]=0x')[1]!.split('&')[0]!;
      const [whole, fraction = ''] = PRICES[PYTH_IDS[id]!].split('.');
      const price = { price: `${whole}${fraction.padEnd(8, '0')}`, conf: '1000', expo: -8, publish_time: nowS() };
      return answer('pyth', () => JSON.stringify({ parsed: [{ id, price, ema_price: price }] }))() as never;
    })
    .persist();
  return { calls, down };
}

function router(clock: FakeClock, limits: Record<'coinbase' | 'coingecko' | 'pyth', ProviderLimit>, timeoutMs = 2_000, breakerFailures = 3) {
  return new QuoteRouter({
    clock,
    cacheMs: 15_000,
    breaker: { failures: breakerFailures, openMs: 30_000 },
    providers: [
      { provider: new CoinbaseQuoteProvider({ clock, baseUrl: 'http://coinbase.test' }), limit: limits.coinbase, timeoutMs },
      { provider: new CoinGeckoQuoteProvider({ clock, baseUrl: 'http://coingecko.test' }), limit: limits.coingecko, timeoutMs },
      { provider: new PythQuoteProvider({ clock, baseUrl: 'http://hermes.test' }), limit: limits.pyth, timeoutMs },
    ],
  });
}

const ROOMY: ProviderLimit = { points: 1_000, durationSeconds: 60, maxQueueSize: 100 };
const roomy = { coinbase: ROOMY, coingecko: ROOMY, pyth: ROOMY };

describe('the router over the HTTP sources', () => {
  it('200 concurrent asks for one price make exactly one call per source', async () => {
    const clock = new FakeClock();
    const { calls } = apis(clock);
    const r = router(clock, roomy);
    const quotes = await Promise.all(Array.from({ length: 200 }, () => r.usdPrice('EURC', PRODUCTION)));
    expect(calls).toEqual({ coinbase: 1, coingecko: 1, pyth: 1 });
    expect(new Set(quotes.map((q) => `${formatUsdPrice(q.price)} ${q.provider}`))).toEqual(new Set(['1.0842 median(coinbase,coingecko,pyth)']));
  });

  it('under 200 asks over 20 cache periods, no source is called more than its bucket allows', async () => {
    const clock = new FakeClock();
    const { calls } = apis(clock);
    // Windows far longer than the test: what the buckets allow is exactly their points.
    const limits = {
      coinbase: { points: 4, durationSeconds: 3_600, maxQueueSize: 0 },
      coingecko: { points: 2, durationSeconds: 3_600, maxQueueSize: 2 },
      pyth: { points: 7, durationSeconds: 3_600, maxQueueSize: 5 },
    };
    // A short timeout bounds the queue waits; a slow nock reply on a busy machine must not open a
    // breaker (which would lower the calls below what the buckets allow).
    const r = router(clock, limits, 200, 1_000);
    const assets: PricedAsset[] = ['EURC', 'USDC', 'ETH'];
    const outcomes = { priced: 0, unavailable: 0 };
    for (let wave = 0; wave < 20; wave++) {
      const asks = Array.from({ length: 10 }, (_, i) => r.usdPrice(assets[(wave + i) % 3]!, ALL_NETWORKS[i % 2]!));
      for (const result of await Promise.allSettled(asks)) {
        if (result.status === 'fulfilled') outcomes.priced += 1;
        else if (result.reason instanceof ServiceUnavailable) outcomes.unavailable += 1;
        else throw result.reason;
      }
      clock.advance(16_000); // every cached answer expires: the next wave wants new calls
    }
    expect(calls).toEqual({ coinbase: 4, coingecko: 2, pyth: 7 });
    expect(outcomes.priced + outcomes.unavailable).toBe(200);
    expect(outcomes.priced).toBeGreaterThan(0);
    expect(outcomes.unavailable).toBeGreaterThan(0); // the buckets ran dry: 503, not a guess
    const states = await r.providerStates();
    expect(states.map((s) => [s.name, s.limit.remaining])).toEqual([
      ['coinbase', 0],
      ['coingecko', 0],
      ['pyth', 0],
    ]);
  });

  it('a 429 with Retry-After keeps the router away from that source until then', async () => {
    const clock = new FakeClock();
    const { calls, down } = apis(clock);
    down.pyth = [429, { 'retry-after': '120' }];
    const r = router(clock, roomy);
    expect((await r.usdPrice('EURC', PRODUCTION)).provider).toBe('median(coinbase,coingecko)');
    for (let i = 0; i < 7; i++) {
      clock.advance(16_000);
      await r.usdPrice('EURC', PRODUCTION);
    }
    expect(calls.pyth).toBe(1);
    expect(r.lastRound('EURC', PRODUCTION)!.answers.find((a) => a.provider === 'pyth')).toMatchObject({ status: 'skipped', reason: 'rate-limited' });
    clock.advance(16_000); // 128 s after the 429
    delete down.pyth;
    expect((await r.usdPrice('EURC', PRODUCTION)).provider).toBe('median(coinbase,coingecko,pyth)');
    expect(calls.pyth).toBe(2);
  });

  it('every source down is 503 with Retry-After, and the breakers then spare the sources', async () => {
    const clock = new FakeClock();
    const { calls, down } = apis(clock);
    down.coinbase = [503, {}];
    down.coingecko = [500, {}];
    down.pyth = [502, {}];
    const r = router(clock, roomy);
    for (let i = 0; i < 5; i++) {
      const e = await r.usdPrice('EURC', PRODUCTION).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ServiceUnavailable);
      expect((e as ServiceUnavailable).retryAfterSeconds).toBeGreaterThan(0);
    }
    expect(calls).toEqual({ coinbase: 3, coingecko: 3, pyth: 3 }); // open after 3 failures
    expect((await r.providerStates()).map((s) => s.breaker.state)).toEqual(['open', 'open', 'open']);
  });
});
