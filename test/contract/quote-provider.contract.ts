import { describe, expect, it } from 'vitest';
import type { Network } from '../../src/domain/network.js';
import { formatUsdPrice, parseUsdPrice, type PricedAsset } from '../../src/domain/usd-price.js';
import type { Clock } from '../../src/ports/clock.js';
import { QuoteFailure, type QuoteProvider } from '../../src/ports/quote-provider.js';

export interface QuoteProviderSubject {
  provider: QuoteProvider;
  clock: Clock;
  network: Network;
  /** What the source says each asset it prices here is worth. */
  expected: Partial<Record<PricedAsset, string>>;
  /** An asset this setup cannot price, when there is one. */
  unsupported?: PricedAsset;
}

/** What every USD-price source promises, the router included (docs/pricing.md). */
export function quoteProviderContract(name: string, make: () => Promise<QuoteProviderSubject>) {
  describe(`QuoteProvider contract: ${name}`, () => {
    it('prices each asset it supports exactly as its source says, labelled and fresh', async () => {
      const { provider, clock, network, expected } = await make();
      expect(Object.keys(expected).length).toBeGreaterThan(0);
      for (const [asset, text] of Object.entries(expected) as [PricedAsset, string][]) {
        expect(provider.supports(asset, network)).toBe(true);
        const quote = await provider.usdPrice(asset, network);
        expect(quote).toMatchObject({ asset, network });
        expect(formatUsdPrice(quote.price)).toBe(formatUsdPrice(parseUsdPrice(text)));
        expect(quote.provider).toMatch(/\S/);
        const age = clock.now().getTime() - quote.observedAt.getTime();
        expect(age).toBeLessThanOrEqual(provider.maxAgeMs(asset));
        expect(age).toBeGreaterThan(-60_000);
      }
    });

    it('refuses an asset it cannot price as "unsupported", never with a price', async () => {
      const { provider, network, unsupported } = await make();
      if (!unsupported) return;
      expect(provider.supports(unsupported, network)).toBe(false);
      const failure = await provider.usdPrice(unsupported, network).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(QuoteFailure);
      expect((failure as QuoteFailure).kind).toBe('unsupported');
    });

    it('gives no price to a caller that already stopped waiting', async () => {
      const { provider, network, expected } = await make();
      const asset = Object.keys(expected)[0] as PricedAsset;
      const failure = await provider.usdPrice(asset, network, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(QuoteFailure);
      expect((failure as QuoteFailure).kind).toBe('timeout');
    });
  });
}
