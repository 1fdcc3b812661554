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
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';
import { ReadWatches } from './read-watches.js';
import type { TokenView } from '../kit/views.js';
import type { TokenViews } from '../kit/deps.js';

interface Entry {
  view: TokenView;
  /** The token's last event id, read before the view was built. */
  eventId: number;
  builtAt: number;
  /** No change of the token was announced by the feed from before the build until now. */
  fed: boolean;
}

interface Lookups {
  running: Promise<number> | null;
  next: Promise<number> | null;
}

export class TokenViewCache implements TokenViews {
  private readonly entries = new Map<string, Entry>();
  private readonly lookups = new Map<string, Lookups>();
  private readonly builds = new ReadWatches();
  private readonly unsubscribe: () => void;

  /**
   * With a live `feed` (PostgreSQL LISTEN/NOTIFY, a SQLite file's event-log tail, or the memory
   * store's own), a kept view is
   * served with no query at all until the feed announces a change of its token: this process's
   * own commits before their callers answer, another process's as soon as the database delivers
   * the notification (milliseconds). Whenever the feed is not live, every read checks the event
   * log as above. `fresh` reads always check it.
   */
  constructor(
    private readonly options: { maxEntries: number; maxAgeMs: number } = { maxEntries: 10_000, maxAgeMs: 1_000 },
    private feed: ChangeFeed | null = null,
  ) {
    this.unsubscribe =
      feed?.subscribe((tokenId) => {
        this.builds.announced(tokenId);
        if (tokenId === null) {
          for (const entry of this.entries.values()) entry.fed = false;
          return;
        }
        const entry = this.entries.get(tokenId);
        if (entry) entry.fed = false;
      }) ?? (() => undefined);
  }

  /** Stops listening to the feed and forgets every view; from then on every read checks the event log (the service's stop: a store may outlive it). */
  close(): void {
    this.unsubscribe();
    this.feed = null;
    this.entries.clear();
  }

  /**
   * The view of `tokenId` at `now`: the kept one while still true, else `build()` (kept if it
   * returns). `fresh`: checked against the database whatever the feed says.
   */
  /** The kept view of `tokenId` when it may be served with no query at all (young, vouched for by a live feed); else undefined. */
  trusted(tokenId: string, now: Date): TokenView | undefined {
    const kept = this.entries.get(tokenId);
    return kept && this.young(kept, now) && kept.fed && this.feed?.live ? kept.view : undefined;
  }

  async get(uow: UnitOfWork, tokenId: string, now: Date, build: () => Promise<TokenView>, options: { fresh?: boolean } = {}): Promise<TokenView> {
    const kept = options.fresh ? undefined : this.trusted(tokenId, now);
    if (kept) return kept;
    // Watch for announcements from before the event log is read: one that arrives while the
    // view is built makes it unfit to serve on the feed's word.
    return this.builds.watch(tokenId, !this.feed?.live, async (watch) => {
      // Read before building: a change committed after this read has a larger id, so a view built
      // from newer data is at worst rebuilt once more, never served stale.
      const eventId = await this.lastEventId(uow, tokenId);
      const current = this.entries.get(tokenId);
      if (current && current.eventId === eventId && this.young(current, now)) {
        // Still true; and with nothing announced since before the check, the feed vouches for it again.
        if (!watch.changed && this.feed?.live) current.fed = true;
        return current.view;
      }
      const view = await build();
      const latest = this.entries.get(tokenId);
      if (!latest || latest.eventId <= eventId) {
        this.entries.delete(tokenId);
        if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(tokenId, { view, eventId, builtAt: now.getTime(), fed: !watch.changed && Boolean(this.feed?.live) });
      }
      return view;
    });
  }

  /** Built less than `maxAgeMs` before `now` (the 24-hour figures move with time alone). */
  private young(entry: Entry, now: Date): boolean {
    const age = now.getTime() - entry.builtAt;
    return age >= 0 && age < this.options.maxAgeMs;
  }

  /** The token's last event id, from a lookup that starts no earlier than this call. */
  private lastEventId(uow: UnitOfWork, tokenId: string): Promise<number> {
    let l = this.lookups.get(tokenId);
    if (!l) this.lookups.set(tokenId, (l = { running: null, next: null }));
    const lookups = l;
    const start = (): Promise<number> => {
      const p = uow.run((s) => s.events.lastId(tokenId));
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
