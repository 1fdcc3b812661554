/**
 * CoinGecko's simple-price API: GET /api/v3/simple/price?ids=euro-coin&vs_currencies=usd
 * &include_last_updated_at=true&precision=full answers `{"euro-coin":{"usd":1.0838,
 * "last_updated_at":1732358400}}` — the price as a JSON number (read as exact text, never a
 * float) and when CoinGecko last updated it. A Demo key goes in the `x-cg-demo-api-key` header.
 * Docs: https://docs.coingecko.com/reference/simple-price; limits: keyless "10-30/min" varying
 * with traffic, a Demo key 30/min or more (docs/pricing.md cites both).
 */
import type { Network } from '../../../domain/network.js';
import { InvalidPrice, parseUsdPrice, type PricedAsset } from '../../../domain/usd-price.js';
import type { Clock } from '../../../ports/clock.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../../ports/quote-provider.js';
import { field, getQuoteJson } from '../kit/quote-http.js';

export const COINGECKO_API_URL = 'https://api.coingecko.com';

/** CoinGecko coin ids (the "API ID" on each coin's page). */
const IDS: Record<PricedAsset, string> = { USDC: 'usd-coin', EURC: 'euro-coin', ETH: 'ethereum' };

export interface CoinGeckoQuoteProviderOptions {
  clock: Clock;
  baseUrl?: string;
  /** A Demo API key; without one the keyless public limits apply. */
  apiKey?: string | undefined;
  timeoutMs?: number;
  /** CoinGecko refreshes simple prices every 60 s; an answer older than this is stale. */
  maxAgeMs?: number;
}

export class CoinGeckoQuoteProvider implements QuoteProvider {
  readonly name = 'coingecko';
  readonly networkIndependent = true;
  private readonly base: string;

  constructor(private readonly options: CoinGeckoQuoteProviderOptions) {
    this.base = (options.baseUrl ?? COINGECKO_API_URL).replace(/\/+$/, '');
  }

  supports(asset: PricedAsset): boolean {
    return asset in IDS;
  }

  maxAgeMs(): number {
    return this.options.maxAgeMs ?? 600_000;
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    const id = IDS[asset];
    if (!id) throw new QuoteFailure(this.name, 'unsupported', `no coin id for ${asset}`);
    const query = new URLSearchParams({ ids: id, vs_currencies: 'usd', include_last_updated_at: 'true', precision: 'full' });
    const { body } = await getQuoteJson({
      provider: this.name,
      url: `${this.base}/api/v3/simple/price?${query}`,
      headers: this.options.apiKey ? { 'x-cg-demo-api-key': this.options.apiKey } : {},
      signal: options.signal,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      now: this.options.clock.now(),
    });
    const coin = field(body, id);
    const updated = field(coin, 'last_updated_at');
    if (typeof updated !== 'string' || !/^\d{1,12}$/.test(updated)) {
      throw new QuoteFailure(this.name, 'malformed', `no ${id}.usd with last_updated_at`);
    }
    try {
      return { asset, network, price: parseUsdPrice(field(coin, 'usd')), provider: this.name, observedAt: new Date(Number(updated) * 1000) };
    } catch (e) {
      if (e instanceof InvalidPrice) throw new QuoteFailure(this.name, e.reason, e.message);
      throw e;
    }
  }
}
