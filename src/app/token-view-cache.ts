/**
 * Hot token views without their aggregates: a view is kept with the id of its token's last event
 * read just before it was built, and served again only while that is still the token's last
 * event — one index lookup (events by token and id) instead of the token, its 24-hour volume and
 * its holder count. Every change a view shows (a trade and its position, graduation, deployment)
 * appends an event of the token in the change's own transaction, and the event log is the
 * database's, so a write by any process — two on one PostgreSQL — is seen by the next read.
 * The 24-hour figures also move with time alone (a trade leaving the window): a view is rebuilt
 * once `maxAgeMs` old however quiet its token.
 */
import type { Stores } from '../ports/unit-of-work.js';
import type { TokenView } from './views.js';

interface Entry {
  view: TokenView;
  /** The token's last event id, read before the view was built. */
  eventId: number;
  builtAt: number;
}

export class TokenViewCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: { maxEntries: number; maxAgeMs: number } = { maxEntries: 10_000, maxAgeMs: 1_000 }) {}

  /** The view of `tokenId` at `now`: the kept one while still true, else `build()` (kept if it returns). */
  async get(stores: Stores, tokenId: string, now: Date, build: () => Promise<TokenView>): Promise<TokenView> {
    // Read before building: a change committed after this read has a larger id, so a view built
    // from newer data is at worst rebuilt once more, never served stale.
    const eventId = await stores.events.lastId(tokenId);
    const kept = this.entries.get(tokenId);
    const age = kept ? now.getTime() - kept.builtAt : Infinity;
    if (kept && kept.eventId === eventId && age >= 0 && age < this.options.maxAgeMs) return kept.view;
    const view = await build();
    this.entries.delete(tokenId);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenId, { view, eventId, builtAt: now.getTime() });
    return view;
  }
}
