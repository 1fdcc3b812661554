/**
 * Coinbase's public prices API (no key): GET /v2/prices/{BASE}-USD/spot answers
 * `{"data":{"amount":"1.0842","base":"EURC","currency":"USD"}}` with the amount as a decimal
 * string. The spot price carries no timestamp, so it is as old as the cache that served it (Age).
 * Docs: https://docs.cdp.coinbase.com/coinbase-app/track-apis/prices — rate limit 10,000 requests
 * an hour (https://docs.cdp.coinbase.com/coinbase-app/api-architecture/rate-limiting).
 */
import type { Network } from '../../../domain/network.js';
import { InvalidPrice, parseUsdPrice, type PricedAsset } from '../../../domain/usd-price.js';
import type { Clock } from '../../../ports/clock.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../../ports/quote-provider.js';
import { field, getQuoteJson } from '../kit/quote-http.js';

export const COINBASE_API_URL = 'https://api.coinbase.com';

/** Coinbase's currency codes; EURC and USDC trade as themselves. */
const PAIRS: Record<PricedAsset, string> = { USDC: 'USDC-USD', EURC: 'EURC-USD', ETH: 'ETH-USD' };

export interface CoinbaseQuoteProviderOptions {
  clock: Clock;
  baseUrl?: string;
  timeoutMs?: number;
  /** A spot price older than this (by its Age) is stale. */
  maxAgeMs?: number;
}

export class CoinbaseQuoteProvider implements QuoteProvider {
  readonly name = 'coinbase';
  readonly networkIndependent = true;
  private readonly base: string;

  constructor(private readonly options: CoinbaseQuoteProviderOptions) {
    this.base = (options.baseUrl ?? COINBASE_API_URL).replace(/\/+$/, '');
  }

  supports(asset: PricedAsset): boolean {
    return asset in PAIRS;
  }

  maxAgeMs(): number {
    return this.options.maxAgeMs ?? 60_000;
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    const pair = PAIRS[asset];
    if (!pair) throw new QuoteFailure(this.name, 'unsupported', `no pair for ${asset}`);
    const now = this.options.clock.now();
    const { body, ageMs } = await getQuoteJson({
      provider: this.name,
      url: `${this.base}/v2/prices/${pair}/spot`,
      signal: options.signal,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      now,
    });
    const data = field(body, 'data');
    const base = field(data, 'base');
    if (field(data, 'currency') !== 'USD' || (base !== undefined && base !== pair.split('-')[0])) {
      throw new QuoteFailure(this.name, 'malformed', `not a ${pair} spot price`);
    }
    try {
      return { asset, network, price: parseUsdPrice(field(data, 'amount')), provider: this.name, observedAt: new Date(now.getTime() - ageMs) };
    } catch (e) {
      if (e instanceof InvalidPrice) throw new QuoteFailure(this.name, e.reason, e.message);
      throw e;
    }
  }
}
