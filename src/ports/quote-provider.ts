import type { Network } from '../domain/network.js';
import type { PricedAsset, UsdPrice } from '../domain/usd-price.js';

/** One USD price of one asset, as a source saw it. */
export interface UsdQuote {
  asset: PricedAsset;
  network: Network;
  price: UsdPrice;
  /** Who priced it: an adapter's name, or for the router the providers whose median it is. */
  provider: string;
  /** When the source observed the price (a feed's updatedAt, Pyth's publish_time …), not when we asked. */
  observedAt: Date;
}

export interface UsdPriceOptions {
  /** Aborted when the caller stops waiting (the router's timeout); adapters pass it to their I/O. */
  signal?: AbortSignal;
}

/**
 * The USD price of an asset (docs/pricing.md). Adapters read one source each; the router implements the
 * same port over all of them, so a use case never knows how many sources there are. Failures are
 * thrown as QuoteFailure, never answered with a guessed price.
 */
export interface QuoteProvider {
  readonly name: string;
  /** Whether this source can price `asset` on `network`; the router asks only those that can. */
  supports(asset: PricedAsset, network: Network): boolean;
  /** How old an answer may be before it is stale, e.g. a Chainlink feed's heartbeat plus a margin. */
  maxAgeMs(asset: PricedAsset): number;
  /** True when the answer does not depend on the network (an off-chain API): one call serves both. */
  readonly networkIndependent: boolean;
  usdPrice(asset: PricedAsset, network: Network, options?: UsdPriceOptions): Promise<UsdQuote>;
}

export type QuoteFailureKind =
  /** 429: the source asks us to wait (`retryAfterMs` when it said how long). */
  | 'rate-limited'
  /** 5xx, refused or dropped connection, RPC error. */
  | 'unavailable'
  | 'timeout'
  /** An answer that is not the documented shape, or not a number. */
  | 'malformed'
  /** A number no asset is worth: zero, negative, 1e30. */
  | 'absurd'
  | 'unsupported';

/** A source could not give a price. Never caller-facing: the router decides what it means. */
export class QuoteFailure extends Error {
  constructor(
    readonly provider: string,
    readonly kind: QuoteFailureKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'QuoteFailure';
  }
}
