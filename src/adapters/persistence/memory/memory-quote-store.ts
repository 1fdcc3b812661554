import type { Quote } from '../../../domain/quote.js';
import type { QuoteStore } from '../../../ports/quote-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryQuoteStore implements QuoteStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async save(quote: Quote, holdKey?: string): Promise<void> {
    this.db.set(this.tx, this.db.quotes, quote.quoteId, quote);
    if (holdKey !== undefined) this.db.set(this.tx, this.db.heldQuotes, holdKey, quote.quoteId);
  }

  async get(quoteId: string): Promise<Quote | null> {
    return this.db.quotes.get(quoteId) ?? null;
  }

  async getHeld(holdKey: string, now: Date): Promise<Quote | null> {
    const id = this.db.heldQuotes.get(holdKey);
    const quote = id === undefined ? undefined : this.db.quotes.get(id);
    return quote && quote.expiresAt > now ? quote : null;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const expired = [...this.db.quotes.values()]
      .filter((q) => q.expiresAt < before)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit);
    for (const q of expired) this.db.delete(this.tx, this.db.quotes, q.quoteId);
    const n = expired.length;
    for (const [key, id] of this.db.heldQuotes) {
      if (!this.db.quotes.has(id)) this.db.delete(this.tx, this.db.heldQuotes, key);
    }
    return n;
  }
}
