import type { AssetQuote } from '../../../domain/asset-quote.js';
import type { AssetQuoteStore } from '../../../ports/asset-quote-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryAssetQuoteStore implements AssetQuoteStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async hold(quote: AssetQuote, now: Date): Promise<AssetQuote> {
    // Single-threaded between awaits: the check and the write cannot interleave with another hold.
    const held = this.db.assetQuotes.get(quote.holdKey);
    if (held && held.expiresAt > now) return held;
    this.db.set(this.tx, this.db.assetQuotes, quote.holdKey, quote);
    return quote;
  }

  async getHeld(holdKey: string, now: Date): Promise<AssetQuote | null> {
    const q = this.db.assetQuotes.get(holdKey);
    return q && q.expiresAt > now ? q : null;
  }

  async latest(holdKey: string): Promise<AssetQuote | null> {
    return this.db.assetQuotes.get(holdKey) ?? null;
  }

  async latestOf(holdKeys: readonly string[]): Promise<Map<string, AssetQuote>> {
    const found = new Map<string, AssetQuote>();
    for (const key of holdKeys) {
      const q = this.db.assetQuotes.get(key);
      if (q) found.set(key, q);
    }
    return found;
  }

  async release(holdKey: string, quoteId: string): Promise<void> {
    if (this.db.assetQuotes.get(holdKey)?.quoteId === quoteId) this.db.delete(this.tx, this.db.assetQuotes, holdKey);
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const expired = [...this.db.assetQuotes.values()]
      .filter((q) => q.expiresAt < before)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit);
    for (const q of expired) this.db.delete(this.tx, this.db.assetQuotes, q.holdKey);
    return expired.length;
  }
}
