/** A quote source that does what a test scripts: answer (fresh or old), fail, hang, or wait for a gate. */
import type { Network } from '../../src/domain/network.js';
import { parseUsdPrice, type PricedAsset } from '../../src/domain/usd-price.js';
import type { Clock } from '../../src/ports/clock.js';
import { QuoteFailure, type QuoteFailureKind, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../src/ports/quote-provider.js';

export type Script =
  | { price: string; ageMs?: number; gate?: Promise<void> }
  | { fail: QuoteFailureKind; retryAfterMs?: number }
  | { hang: true };

export class ScriptedQuoteProvider implements QuoteProvider {
  calls = 0;
  readonly asked: { asset: PricedAsset; network: Network }[] = [];

  constructor(
    readonly name: string,
    private readonly clock: Clock,
    public script: Script | ((asset: PricedAsset, network: Network) => Script),
    readonly options: { maxAgeMs?: number; networkIndependent?: boolean; assets?: PricedAsset[] } = {},
  ) {}

  get networkIndependent(): boolean {
    return this.options.networkIndependent ?? true;
  }

  supports(asset: PricedAsset): boolean {
    return (this.options.assets ?? ['USDC', 'EURC', 'ETH']).includes(asset);
  }

  maxAgeMs(): number {
    return this.options.maxAgeMs ?? 60_000;
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    this.calls += 1;
    this.asked.push({ asset, network });
    const s = typeof this.script === 'function' ? this.script(asset, network) : this.script;
    if ('hang' in s) {
      return new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(new QuoteFailure(this.name, 'timeout', 'aborted'))));
    }
    if ('fail' in s) throw new QuoteFailure(this.name, s.fail, `scripted ${s.fail}`, s.retryAfterMs);
    if (s.gate) await s.gate;
    return { asset, network, price: parseUsdPrice(s.price), provider: this.name, observedAt: new Date(this.clock.now().getTime() - (s.ageMs ?? 0)) };
  }
}

/** A promise tests open by hand. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
