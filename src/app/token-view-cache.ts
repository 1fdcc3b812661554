/**
 * Hot token views without their aggregates: a view is kept with the id of its token's last event
 * read just before it was built, and served again only while that is still the token's last
 * event — one index lookup (events by token and id) instead of the token, its 24-hour volume and
 * its holder count. Every change a view shows (a trade and its position, graduation, deployment)
 * appends an event of the token in the change's own transaction, and the event log is the
 * database's, so a write by any process — two on one PostgreSQL — is seen by the next read.
 * The 24-hour figures also move with time alone (a trade leaving the window): a view is rebuilt
 * once `maxAgeMs` old however quiet its token.
 *
 * Concurrent reads of one token share lookups, but only lookups that start after they arrive (a
 * reader waits for the next one while one is under way): whoever saw a write commit before
 * asking gets a view that includes it, and a hot token costs one lookup per database round trip
 * however many read it.
 */
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { TokenView } from './views.js';

interface Entry {
  view: TokenView;
  /** The token's last event id, read before the view was built. */
  eventId: number;
  builtAt: number;
}

interface Lookups {
  running: Promise<number> | null;
  next: Promise<number> | null;
}

export class TokenViewCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lookups = new Map<string, Lookups>();

  constructor(private readonly options: { maxEntries: number; maxAgeMs: number } = { maxEntries: 10_000, maxAgeMs: 1_000 }) {}

  /** The view of `tokenId` at `now`: the kept one while still true, else `build()` (kept if it returns). */
  async get(uow: UnitOfWork, tokenId: string, now: Date, build: () => Promise<TokenView>): Promise<TokenView> {
    // Read before building: a change committed after this read has a larger id, so a view built
    // from newer data is at worst rebuilt once more, never served stale.
    const eventId = await this.lastEventId(uow, tokenId);
    const kept = this.entries.get(tokenId);
    const age = kept ? now.getTime() - kept.builtAt : Infinity;
    if (kept && kept.eventId === eventId && age >= 0 && age < this.options.maxAgeMs) return kept.view;
    const view = await build();
    const current = this.entries.get(tokenId);
    if (!current || current.eventId <= eventId) {
      this.entries.delete(tokenId);
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(tokenId, { view, eventId, builtAt: now.getTime() });
    }
    return view;
  }

  /** The token's last event id, from a lookup that starts no earlier than this call. */
  private lastEventId(uow: UnitOfWork, tokenId: string): Promise<number> {
    let l = this.lookups.get(tokenId);
    if (!l) this.lookups.set(tokenId, (l = { running: null, next: null }));
    const lookups = l;
    const start = (): Promise<number> => {
      const p = uow.read((s) => s.events.lastId(tokenId));
      lookups.running = p;
      const done = () => {
        if (lookups.running === p) lookups.running = null;
        if (!lookups.running && !lookups.next) this.lookups.delete(tokenId);
      };
      p.then(done, done);
      return p;
    };
    if (!lookups.running) return start();
    // One is under way and may have read before our caller's write: wait for the next.
    lookups.next ??= lookups.running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      lookups.next = null;
      return start();
    });
    return lookups.next;
  }
}
