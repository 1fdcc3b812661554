import type { AssetQuote } from '../domain/asset-quote.js';

/** The held asset prices of 402s (docs/pricing.md), one per hold key. */
export interface AssetQuoteStore {
  /**
   * Holds `quote` under its hold key unless an unexpired quote is held there at `now` already;
   * returns the one held afterwards. Of concurrent holds for one key, all see the same winner.
   */
  hold(quote: AssetQuote, now: Date): Promise<AssetQuote>;
  /** The unexpired quote held under `holdKey` at `now`, if any. */
  getHeld(holdKey: string, now: Date): Promise<AssetQuote | null>;
  /** The quote last held under `holdKey`, expired or not (until it is purged or replaced). */
  latest(holdKey: string): Promise<AssetQuote | null>;
  /** `latest` of several keys at once, by hold key (keys with none are absent). */
  latestOf(holdKeys: readonly string[]): Promise<Map<string, AssetQuote>>;
  /**
   * Stops holding `quoteId` under `holdKey` (the live price moved away from it), so the next
   * hold there takes a fresh quote; does nothing when another quote is held there by now.
   */
  release(holdKey: string, quoteId: string): Promise<void>;
  /** Deletes at most `limit` quotes that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
