/**
 * Prices set by configuration, observed "now": the devnet's second opinion beside its mock
 * Chainlink feeds, and a deterministic source for tests. Never a default on real networks.
 */
import type { Network } from '../../../domain/network.js';
import { parseUsdPrice, type PricedAsset, type UsdPrice } from '../../../domain/usd-price.js';
import type { Clock } from '../../../ports/clock.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../../ports/quote-provider.js';

export interface FixedQuoteProviderOptions {
  clock: Clock;
  /** Decimal strings ("1.08") or exact prices, per asset; an asset left out is unsupported. */
  prices: Partial<Record<PricedAsset, string | UsdPrice>>;
  name?: string;
}

export class FixedQuoteProvider implements QuoteProvider {
  readonly name: string;
  readonly networkIndependent = true;
  private readonly prices: Partial<Record<PricedAsset, UsdPrice>> = {};

  constructor(private readonly options: FixedQuoteProviderOptions) {
    this.name = options.name ?? 'fixed';
    for (const [asset, price] of Object.entries(options.prices) as [PricedAsset, string | UsdPrice][]) {
      this.prices[asset] = typeof price === 'string' ? parseUsdPrice(price) : price;
    }
  }

  supports(asset: PricedAsset): boolean {
    return this.prices[asset] !== undefined;
  }

  maxAgeMs(): number {
    // Observed at the moment it is asked, so never stale.
    return Number.MAX_SAFE_INTEGER;
  }

  /** Sets a price (tests move the market with this). */
  set(asset: PricedAsset, price: string | UsdPrice): void {
    this.prices[asset] = typeof price === 'string' ? parseUsdPrice(price) : price;
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    if (options.signal?.aborted) throw new QuoteFailure(this.name, 'timeout', 'the caller stopped waiting');
    const price = this.prices[asset];
    if (!price) throw new QuoteFailure(this.name, 'unsupported', `no fixed price for ${asset}`);
    return { asset, network, price, provider: this.name, observedAt: this.options.clock.now() };
  }
}
