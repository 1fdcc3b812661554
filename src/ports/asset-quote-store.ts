import type { AssetQuote } from '../domain/asset-quote.js';

/** The held asset prices of 402s (SPEC §15), one per hold key. */
export interface AssetQuoteStore {
  /**
   * Holds `quote` under its hold key unless an unexpired quote is held there at `now` already;
   * returns the one held afterwards. Of concurrent holds for one key, all see the same winner.
   */
  hold(quote: AssetQuote, now: Date): Promise<AssetQuote>;
  /** The unexpired quote held under `holdKey` at `now`, if any. */
  getHeld(holdKey: string, now: Date): Promise<AssetQuote | null>;
  /** Deletes at most `limit` quotes that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
