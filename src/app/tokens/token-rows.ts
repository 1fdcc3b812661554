/**
 * The token as the checks before a trade read it — a 402's price, the rules before the claim and
 * again after it, a sell's check — kept in memory while a live change feed vouches that nothing
 * changed the token since it was read, and at most `maxAgeMs` (decision 0057). A paid call read
 * the same row three times before its trade; the rules after the claim ask "has anything changed
 * since the rules before it?", which is what the feed answers.
 *
 * Never for a trade itself: the trade's transaction reads the token locked and checks everything
 * again, so a row another process changed a moment ago (before its notification arrived) can at
 * worst let a check pass that the trade then refuses — refunded, as any change between a check and
 * the trade is. This process's own commits reach the feed before their callers answer.
 */
import type { Token } from '../../domain/token.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import { ReadWatches } from './read-watches.js';
import type { TokenRows } from '../kit/deps.js';

interface Kept {
  token: Token;
  readAt: number;
}

export class TokenRowCache implements TokenRows {
  private readonly kept = new Map<string, Kept>();
  private readonly reads = new ReadWatches();
  private readonly unsubscribe: () => void;

  constructor(
    private feed: ChangeFeed | null,
    private readonly options: { maxEntries: number; maxAgeMs: number } = { maxEntries: 10_000, maxAgeMs: 1_000 },
  ) {
    this.unsubscribe =
      feed?.subscribe((tokenId) => {
        this.reads.announced(tokenId);
        if (tokenId === null) this.kept.clear();
        else this.kept.delete(tokenId);
      }) ?? (() => undefined);
  }

  /** Stops listening to the feed and forgets every row; from then on every read goes to the store (the service's stop: a store may outlive it). */
  close(): void {
    this.unsubscribe();
    this.feed = null;
    this.kept.clear();
  }

  /** The token: the kept row while the feed vouches for it, else `read()` (kept when nothing was announced while it ran). */
  async get(tokenId: string, now: Date, read: () => Promise<Token | null>): Promise<Token | null> {
    const live = this.feed?.live ?? false;
    const kept = this.kept.get(tokenId);
    if (kept && live) {
      const age = now.getTime() - kept.readAt;
      if (age >= 0 && age < this.options.maxAgeMs) return kept.token;
    }
    if (!live) return read();
    // Watched from before the read: an announcement that arrives while it runs may be of a commit it did not see.
    return this.reads.watch(tokenId, false, async (watch) => {
      const token = await read();
      if (token && !watch.changed && this.feed?.live) {
        this.kept.delete(tokenId);
        if (this.kept.size >= this.options.maxEntries) this.kept.delete(this.kept.keys().next().value!);
        this.kept.set(tokenId, { token, readAt: now.getTime() });
      }
      return token;
    });
  }
}
