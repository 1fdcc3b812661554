/**
 * The HTTP quote sources against their APIs simulated with nock, in the shapes their docs give:
 * a good answer is read exactly; a 429 (with or without Retry-After), a 5xx, a timeout, a dropped
 * connection, a garbage body and an absurd value (negative, zero, 1e30, "NaN") are each a
 * QuoteFailure of the right kind — never a price. Each adapter also passes the port's contract.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/adapters/clock/fake/fake-clock.js';
import { SystemClock } from '../../../src/adapters/clock/system/system-clock.js';
import { CoinbaseQuoteProvider } from '../../../src/adapters/quotes/coinbase/coinbase-quote-provider.js';
import { CoinGeckoQuoteProvider } from '../../../src/adapters/quotes/coingecko/coingecko-quote-provider.js';
import { PYTH_FEEDS, PythQuoteProvider } from '../../../src/adapters/quotes/pyth/pyth-quote-provider.js';
import { PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import { formatUsdPrice, type PricedAsset } from '../../../src/domain/usd-price.js';
import type { Clock } from '../../../src/ports/clock.js';
import { QuoteFailure, type QuoteFailureKind, type QuoteProvider } from '../../../src/ports/quote-provider.js';
import { quoteProviderContract } from '../../contract/quote-provider.contract.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const NOW = '2026-11-23T12:00:00.000Z';
const NOW_S = Date.parse(NOW) / 1000;

/** One simulated API: where it answers and how a good answer for `asset` looks. */
interface Api {
  name: string;
  host: string;
  make(clock: Clock, timeoutMs?: number): QuoteProvider;
  /** The path (with query) a request for `asset` goes to. */
  matches(asset: PricedAsset): (uri: string) => boolean;
  /** A body carrying `literal` as the price, exactly as written (JSON number or string as the API uses). */
  body(asset: PricedAsset, literal: string, observedS: number): string;
  /** The literal an absurd or malformed value takes in this API. */
  literal(value: 'price' | 'negative' | 'zero' | 'huge' | 'nan'): string;
}

const coinbase: Api = {
  name: 'CoinbaseQuoteProvider',
  host: 'http://coinbase.test',
  make: (clock, timeoutMs = 300) => new CoinbaseQuoteProvider({ clock, baseUrl: 'http://coinbase.test/', timeoutMs }),
  matches: (asset) => (uri) => uri === `/v2/prices/${asset}-USD/spot`,
  body: (asset, literal) => `{"data":{"amount":${literal},"base":"${asset}","currency":"USD"}}`,
  literal: (v) => ({ price: '"1.0842"', negative: '"-1.08"', zero: '"0"', huge: '"1e30"', nan: '"NaN"' })[v],
};

const coingeckoIds: Record<PricedAsset, string> = { USDC: 'usd-coin', EURC: 'euro-coin', ETH: 'ethereum' };
const coingecko: Api = {
  name: 'CoinGeckoQuoteProvider',
  host: 'http://coingecko.test',
  make: (clock, timeoutMs = 300) => new CoinGeckoQuoteProvider({ clock, baseUrl: 'http://coingecko.test', apiKey: 'demo-key', timeoutMs }),
  matches: (asset) => (uri) =>
    uri.startsWith('/api/v3/simple/price?') &&
    new URLSearchParams(uri.split('?')[1]).get('ids') === coingeckoIds[asset] &&
    new URLSearchParams(uri.split('?')[1]).get('include_last_updated_at') === 'true',
  body: (asset, literal, observedS) => `{"${coingeckoIds[asset]}":{"usd":${literal},"last_updated_at":${observedS}}}`,
  literal: (v) => ({ price: '1.0842', negative: '-1.08', zero: '0', huge: '1e30', nan: '"NaN"' })[v],
};

const pyth: Api = {
  name: 'PythQuoteProvider',
  host: 'http://hermes.test',
  make: (clock, timeoutMs = 300) => new PythQuoteProvider({ clock, baseUrl: 'http://hermes.test', apiKey: 'pyth-key', timeoutMs }),
  matches: (asset) => (uri) => uri.startsWith('/v2/updates/price/latest?') && decodeURIComponent(uri).includes(`ids[]=0x${PYTH_FEEDS[asset]}`),
  // Pyth: an integer price string with expo; the literal here is "<integer>e<expo>".
  body: (asset, literal, observedS) => {
    const [integer, expo] = literal.replace(/"/g, '').split('e');
    return JSON.stringify({
      binary: { encoding: 'hex', data: ['504e4155'] },
      parsed: [
        {
          id: PYTH_FEEDS[asset],
          price: { price: integer, conf: '52000', expo: Number(expo ?? 0), publish_time: observedS },
          ema_price: { price: integer, conf: '52000', expo: Number(expo ?? 0), publish_time: observedS },
          metadata: { slot: 1, proof_available_time: observedS, prev_publish_time: observedS - 1 },
        },
      ],
    });
  },
  literal: (v) => ({ price: '108420000e-8', negative: '-108000000e-8', zero: '0e-8', huge: '1e30', nan: 'NaNe-8' })[v],
};

const reply = (api: Api, asset: PricedAsset, literal: string, observedS = NOW_S) =>
  nock(api.host)
    .get((uri) => api.matches(asset)(uri))
    .reply(200, api.body(asset, literal, observedS), { 'content-type': 'application/json' });

async function failure(p: Promise<unknown>): Promise<QuoteFailure> {
  const e = await p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))}`);
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(QuoteFailure);
  return e as QuoteFailure;
}

describe.each([coinbase, coingecko, pyth])('$name', (api) => {
  const clock = new FakeClock(NOW);
  const ask = (asset: PricedAsset = 'EURC', timeoutMs?: number) => api.make(clock, timeoutMs).usdPrice(asset, TESTNET);

  it('reads the documented answer exactly, with when it was observed', async () => {
    const scope = reply(api, 'EURC', api.literal('price'), NOW_S - 20);
    const quote = await ask();
    expect(formatUsdPrice(quote.price)).toBe('1.0842');
    expect(quote).toMatchObject({ asset: 'EURC', network: TESTNET, provider: expect.any(String) });
    // Coinbase's spot price has no timestamp: it is as old as the cache that served it.
    expect(quote.observedAt.toISOString()).toBe(api === coinbase ? NOW : new Date((NOW_S - 20) * 1000).toISOString());
    scope.done();
  });

  it.each(['USDC', 'ETH'] as const)('asks for %s by its own id', async (asset) => {
    const scope = reply(api, asset, api.literal('price'));
    expect(formatUsdPrice((await ask(asset)).price)).toBe('1.0842');
    scope.done();
  });

  it('a 429 with Retry-After in seconds says how long to wait', async () => {
    nock(api.host).get(() => true).reply(429, '{"error":"Too Many Requests"}', { 'retry-after': '7' });
    const f = await failure(ask());
    expect([f.kind, f.retryAfterMs]).toEqual(['rate-limited', 7_000]);
  });

  it('a 429 with Retry-After as an HTTP date says until when', async () => {
    nock(api.host).get(() => true).reply(429, '', { 'retry-after': new Date(Date.parse(NOW) + 90_000).toUTCString() });
    const f = await failure(ask());
    expect([f.kind, f.retryAfterMs]).toEqual(['rate-limited', 90_000]);
  });

  it('a 429 without Retry-After is rate-limited without a wait of its own', async () => {
    nock(api.host).get(() => true).reply(429, '{"errors":[{"id":"rate_limit_exceeded","message":"Too many requests"}]}');
    const f = await failure(ask());
    expect([f.kind, f.retryAfterMs]).toEqual(['rate-limited', undefined]);
  });

  it.each([500, 502, 503, 401])('HTTP %i is unavailable', async (status) => {
    nock(api.host).get(() => true).reply(status, 'down');
    expect((await failure(ask())).kind).toBe('unavailable');
  });

  it('a dropped connection is unavailable', async () => {
    nock(api.host).get(() => true).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })); // nock 15 settles a fetch only with an Error
    expect((await failure(ask())).kind).toBe('unavailable');
  });

  it('no answer within the timeout is a timeout', async () => {
    nock(api.host).get(() => true).reply(() => new Promise(() => undefined)); // never answers (nock 15's .delay() answers after the abort, which undici asserts against)
    expect((await failure(ask('EURC', 100))).kind).toBe('timeout');
  });

  it.each([
    ['an HTML page', '<html><body>Just a moment…</body></html>'],
    ['an empty body', ''],
    ['a JSON of another shape', '{"price":1.08}'],
    ['a JSON array', '[1.08]'],
  ])('%s is malformed', async (_what, body) => {
    nock(api.host).get(() => true).reply(200, body);
    expect((await failure(ask())).kind).toBe('malformed');
  });

  it.each([
    ['a negative price', 'negative', 'absurd'],
    ['a zero price', 'zero', 'absurd'],
    ['1e30', 'huge', 'absurd'],
    ['"NaN"', 'nan', 'malformed'],
  ] as const)('%s is refused as a failure, not a price', async (_what, value, kind) => {
    reply(api, 'EURC', api.literal(value));
    expect((await failure(ask())).kind).toBe(kind as QuoteFailureKind);
  });
});

describe('source-specific answers', () => {
  const clock = new FakeClock(NOW);

  it('Coinbase: a cached answer is as old as its Age header', async () => {
    nock(coinbase.host).get('/v2/prices/USDC-USD/spot').reply(200, coinbase.body('USDC', '"0.9999"', 0), { age: '12' });
    const quote = await coinbase.make(clock).usdPrice('USDC', PRODUCTION);
    expect(quote.observedAt.toISOString()).toBe(new Date(Date.parse(NOW) - 12_000).toISOString());
  });

  it('Coinbase: a spot price of another pair is malformed', async () => {
    nock(coinbase.host).get('/v2/prices/EURC-USD/spot').reply(200, '{"data":{"amount":"1.08","base":"EURC","currency":"EUR"}}');
    expect((await failure(coinbase.make(clock).usdPrice('EURC', PRODUCTION))).kind).toBe('malformed');
  });

  it('CoinGecko: sends the Demo key in its header and keeps every digit of a JSON number', async () => {
    const scope = nock(coingecko.host, { reqheaders: { 'x-cg-demo-api-key': 'demo-key' } })
      .get((uri) => coingecko.matches('USDC')(uri))
      .reply(200, '{"usd-coin":{"usd":0.99987654321098765,"last_updated_at":1795435200}}');
    expect(formatUsdPrice((await coingecko.make(clock).usdPrice('USDC', PRODUCTION)).price)).toBe('0.99987654321098765');
    scope.done();
  });

  it('CoinGecko: an answer without last_updated_at cannot be judged fresh, so it is malformed', async () => {
    nock(coingecko.host).get(() => true).reply(200, '{"euro-coin":{"usd":1.08}}');
    expect((await failure(coingecko.make(clock).usdPrice('EURC', PRODUCTION))).kind).toBe('malformed');
  });

  it('Pyth: sends the API key as a bearer token; an answer for another feed is malformed', async () => {
    nock(pyth.host, { reqheaders: { authorization: 'Bearer pyth-key' } })
      .get(() => true)
      .reply(200, pyth.body('USDC', '100000000e-8', NOW_S));
    expect((await failure(pyth.make(clock).usdPrice('EURC', PRODUCTION))).kind).toBe('malformed');
  });

  it('Pyth: applies the exponent exactly', async () => {
    reply(pyth, 'ETH', '301234567890e-8');
    expect(formatUsdPrice((await pyth.make(clock).usdPrice('ETH', PRODUCTION)).price)).toBe('3012.3456789');
  });
});

// The port's contract, each source answering through nock as its docs say.
for (const api of [coinbase, coingecko, pyth]) {
  quoteProviderContract(`${api.name} (nock)`, async () => {
    const clock = new SystemClock();
    const now = Math.floor(Date.now() / 1000);
    for (const [asset, literal] of [
      ['USDC', api === pyth ? '99990000e-8' : api === coinbase ? '"0.9999"' : '0.9999'],
      ['EURC', api.literal('price')],
    ] as const) {
      nock(api.host)
        .get((uri) => api.matches(asset)(uri))
        .reply(200, api.body(asset, literal, now))
        .persist();
    }
    return { provider: api.make(clock, 2_000), clock, network: PRODUCTION, expected: { USDC: '0.9999', EURC: '1.0842' } };
  });
}
