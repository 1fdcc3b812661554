/**
 * Pyth's Hermes API: GET /v2/updates/price/latest?ids[]=<feed id>&parsed=true answers
 * `{"binary":{…},"parsed":[{"id":"76fa…","price":{"price":"108230000","conf":"52000","expo":-8,
 * "publish_time":1732358400},"ema_price":{…}}]}` — an integer price with a decimal exponent and
 * the time it was published. Since the 2026 Pyth Core upgrade Hermes wants an API key as
 * `Authorization: Bearer <key>`. Docs: https://docs.pyth.network/price-feeds/core/fetch-price-updates;
 * public endpoint limit: 30 requests every 10 s per IP, a 429 for the next 60 s beyond it
 * (https://docs.pyth.network/price-feeds/api-instances-and-providers/hermes).
 */
import type { Network } from '../../../domain/network.js';
import { InvalidPrice, usdPriceFromScaled, type PricedAsset } from '../../../domain/usd-price.js';
import type { Clock } from '../../../ports/clock.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../../ports/quote-provider.js';
import { field, getQuoteJson } from '../kit/quote-http.js';

export const PYTH_HERMES_URL = 'https://hermes.pyth.network';

/** Pyth price feed ids (https://docs.pyth.network/price-feeds/price-feeds): Crypto.USDC/USD, Crypto.EURC/USD, Crypto.ETH/USD. */
export const PYTH_FEEDS: Record<PricedAsset, string> = {
  USDC: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  EURC: '76fa85158bf14ede77087fe3ae472f66213f6ea2f5b411cb2de472794990fa5c',
  ETH: 'ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace',
};

export interface PythQuoteProviderOptions {
  clock: Clock;
  baseUrl?: string;
  apiKey?: string | undefined;
  timeoutMs?: number;
  /** Pyth publishes several times a second; a price older than this is stale. */
  maxAgeMs?: number;
}

export class PythQuoteProvider implements QuoteProvider {
  readonly name = 'pyth';
  readonly networkIndependent = true;
  private readonly base: string;

  constructor(private readonly options: PythQuoteProviderOptions) {
    this.base = (options.baseUrl ?? PYTH_HERMES_URL).replace(/\/+$/, '');
  }

  supports(asset: PricedAsset): boolean {
    return asset in PYTH_FEEDS;
  }

  maxAgeMs(): number {
    return this.options.maxAgeMs ?? 60_000;
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    const id = PYTH_FEEDS[asset];
    if (!id) throw new QuoteFailure(this.name, 'unsupported', `no feed for ${asset}`);
    const { body } = await getQuoteJson({
      provider: this.name,
      url: `${this.base}/v2/updates/price/latest?ids[]=0x${id}&parsed=true`,
      headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
      signal: options.signal,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      now: this.options.clock.now(),
    });
    const parsed = field(body, 'parsed');
    const update = Array.isArray(parsed) ? parsed.find((u) => String(field(u, 'id')).replace(/^0x/, '').toLowerCase() === id) : undefined;
    const price = field(update, 'price');
    const [integer, expo, published] = [field(price, 'price'), field(price, 'expo'), field(price, 'publish_time')];
    if (typeof integer !== 'string' || !/^-?\d{1,40}$/.test(integer) || typeof expo !== 'string' || !/^-?\d{1,3}$/.test(expo)) {
      throw new QuoteFailure(this.name, 'malformed', `no price with expo for feed ${id}`);
    }
    if (typeof published !== 'string' || !/^\d{1,12}$/.test(published)) {
      throw new QuoteFailure(this.name, 'malformed', `no publish_time for feed ${id}`);
    }
    try {
      return {
        asset,
        network,
        price: usdPriceFromScaled(BigInt(integer), Number(expo)),
        provider: this.name,
        observedAt: new Date(Number(published) * 1000),
      };
    } catch (e) {
      if (e instanceof InvalidPrice) throw new QuoteFailure(this.name, e.reason, e.message);
      throw e;
    }
  }
}
