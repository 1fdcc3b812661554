/**
 * The token rows the checks before a trade read (decision 0057): kept only while a live change
 * feed vouches for them — never past an announcement of their token, never one read while a
 * change was announced, never without a live feed — and at most a second.
 */
import { describe, expect, it } from 'vitest';
import { CommitFeed } from '../../src/adapters/persistence/kit/commit-feed.js';
import type { Token } from '../../src/domain/token.js';
import { TokenRowCache } from '../../src/app/tokens/token-rows.js';
import { TokenViewCache } from '../../src/app/tokens/token-view-cache.js';
import { checkedToken } from '../../src/app/trading/load-token.js';
import type { Stores, UnitOfWork } from '../../src/ports/unit-of-work.js';
import { token } from '../support/fixtures.js';

const at = (ms: number) => new Date(1_800_000_000_000 + ms);

/** A row store the cache reads through, counting its reads; `during` runs inside a read. */
function rows(initial: Token) {
  let row = initial;
  const store = {
    reads: 0,
    during: null as null | (() => void),
    set(next: Token) {
      row = next;
    },
    read: async (): Promise<Token | null> => {
      store.reads += 1;
      const seen = row;
      store.during?.();
      return seen;
    },
  };
  return store;
}

describe('TokenRowCache', () => {
  it('serves the row it read while the live feed announces no change of it, for at most maxAgeMs', async () => {
    const feed = new CommitFeed();
    const cache = new TokenRowCache(feed, { maxEntries: 10, maxAgeMs: 1_000 });
    const store = rows(token({ tokenId: 'tok_a' }));
    expect(await cache.get('tok_a', at(0), store.read)).toMatchObject({ tokenId: 'tok_a' });
    expect(await cache.get('tok_a', at(999), store.read)).toMatchObject({ tokenId: 'tok_a' });
    expect(store.reads).toBe(1);
    await cache.get('tok_a', at(1_000), store.read);
    expect(store.reads).toBe(2);
    // Another token's change leaves it kept.
    feed.committed(new Set(['tok_b']));
    await cache.get('tok_a', at(1_500), store.read);
    expect(store.reads).toBe(2);
  });

  it('reads again after its token changed, and after the feed lost track of everything', async () => {
    const feed = new CommitFeed();
    const cache = new TokenRowCache(feed);
    const store = rows(token({ tokenId: 'tok_a', name: 'First' }));
    await cache.get('tok_a', at(0), store.read);
    store.set(token({ tokenId: 'tok_a', name: 'Second' }));
    feed.committed(new Set(['tok_a']));
    expect((await cache.get('tok_a', at(1), store.read))?.name).toBe('Second');
    feed.emit(null);
    await cache.get('tok_a', at(2), store.read);
    expect(store.reads).toBe(3);
  });

  it('does not keep a row read while a change of its token was announced (it may predate the change)', async () => {
    const feed = new CommitFeed();
    const cache = new TokenRowCache(feed);
    const store = rows(token({ tokenId: 'tok_a', name: 'First' }));
    store.during = () => {
      store.set(token({ tokenId: 'tok_a', name: 'Second' }));
      feed.committed(new Set(['tok_a']));
    };
    expect((await cache.get('tok_a', at(0), store.read))?.name).toBe('First');
    store.during = null;
    expect((await cache.get('tok_a', at(1), store.read))?.name).toBe('Second');
    expect(store.reads).toBe(2);
  });

  it('does not keep a row read while the feed lost track of everything, or stopped being live', async () => {
    let live = true;
    const feed = new CommitFeed(() => live);
    const cache = new TokenRowCache(feed);
    const store = rows(token({ tokenId: 'tok_a' }));
    store.during = () => feed.emit(null);
    await cache.get('tok_a', at(0), store.read);
    store.during = () => (live = false);
    await cache.get('tok_a', at(1), store.read);
    live = true;
    store.during = null;
    await cache.get('tok_a', at(2), store.read);
    expect(store.reads).toBe(3);
    await cache.get('tok_a', at(3), store.read);
    expect(store.reads).toBe(3);
  });

  it('checkedToken serves the kept row to a 402 and the rules, never to a settled payment being applied', async () => {
    const feed = new CommitFeed();
    const tokenRows = new TokenRowCache(feed);
    let reads = 0;
    const row = token({ tokenId: 'tok_a' });
    const uow = { run: async <T>(work: (s: Stores) => Promise<T>) => work({ tokens: { get: async () => (reads++, row) } } as unknown as Stores) } as UnitOfWork;
    const deps = { tokenRows, clock: { now: () => at(0) }, uow };
    for (const phase of ['ask', 'price', 'price'] as const) await checkedToken(deps, 'tok_a', 'buy', undefined, phase);
    expect(reads).toBe(1);
    await checkedToken(deps, 'tok_a', 'buy', undefined, 'apply');
    expect(reads).toBe(2);
    await expect(checkedToken(deps, 'tok_a', 'buy', 'eip155:1' as never, 'price')).rejects.toMatchObject({ code: 'TOKEN_NETWORK_MISMATCH' });
  });

  it('keeps nothing without a live feed, or without a feed', async () => {
    let live = false;
    const cache = new TokenRowCache(new CommitFeed(() => live));
    const store = rows(token({ tokenId: 'tok_a' }));
    await cache.get('tok_a', at(0), store.read);
    await cache.get('tok_a', at(1), store.read);
    expect(store.reads).toBe(2);
    live = true;
    await cache.get('tok_a', at(2), store.read);
    live = false;
    await cache.get('tok_a', at(3), store.read);
    expect(store.reads).toBe(4);
    const none = new TokenRowCache(null);
    await none.get('tok_a', at(0), store.read);
    await none.get('tok_a', at(1), store.read);
    expect(store.reads).toBe(6);
  });

  it('keeps no unknown token, and at most maxEntries rows (the oldest goes first)', async () => {
    const cache = new TokenRowCache(new CommitFeed(), { maxEntries: 2, maxAgeMs: 1_000 });
    let reads = 0;
    const read = (tokenId: string) => async () => (reads++, tokenId === 'tok_gone' ? null : token({ tokenId }));
    expect(await cache.get('tok_gone', at(0), read('tok_gone'))).toBeNull();
    expect(await cache.get('tok_gone', at(1), read('tok_gone'))).toBeNull();
    for (const id of ['tok_1', 'tok_2', 'tok_3']) await cache.get(id, at(2), read(id));
    reads = 0;
    await cache.get('tok_3', at(3), read('tok_3'));
    await cache.get('tok_2', at(3), read('tok_2'));
    expect(reads).toBe(0);
    await cache.get('tok_1', at(3), read('tok_1'));
    expect(reads).toBe(1);
  });
});

describe('the caches on the change feed, closed', () => {
  it('stop listening when the service stops (a store may outlive it), and forget what they kept', async () => {
    const feed = new CommitFeed();
    let listening = 0;
    const counted = {
      get live() {
        return feed.live;
      },
      subscribe(listener: (tokenId: string | null) => void) {
        listening += 1;
        const off = feed.subscribe(listener);
        return () => {
          listening -= 1;
          off();
        };
      },
    };
    const rowCache = new TokenRowCache(counted);
    const viewCache = new TokenViewCache(undefined, counted);
    expect(listening).toBe(2);
    const store = rows(token({ tokenId: 'tok_a' }));
    await rowCache.get('tok_a', at(0), store.read);
    await rowCache.get('tok_a', at(1), store.read);
    expect(store.reads).toBe(1); // kept
    rowCache.close();
    viewCache.close();
    expect(listening).toBe(0);
    // Closed, it keeps nothing more: no feed would tell it of a change.
    await rowCache.get('tok_a', at(2), store.read);
    await rowCache.get('tok_a', at(3), store.read);
    expect(store.reads).toBe(3);
  });
});
