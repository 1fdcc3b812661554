import type { Quote } from '../domain/quote.js';

export interface QuoteStore {
  /** Saves a quote; with `holdKey`, it is the held price for that key until it expires. */
  save(quote: Quote, holdKey?: string): Promise<void>;
  get(quoteId: string): Promise<Quote | null>;
  /** The unexpired quote held under `holdKey` at `now`, if any. */
  getHeld(holdKey: string, now: Date): Promise<Quote | null>;
  /** Deletes at most `limit` quotes that expired before `before`, oldest first; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
