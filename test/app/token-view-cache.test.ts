/**
 * The hot token-view cache: a view is served again only while its token's last event is the one
 * seen when it was built and for at most a second; a buy by another process (two ORM instances
 * on one PostgreSQL schema, or one SQLite file) shows on the next read.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { UlidIdGenerator } from '../../src/adapters/ids/ulid/ulid-id-generator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import type { SqliteChangeFeed } from '../../src/adapters/persistence/mikro-orm/sqlite-change-feed.js';
import { CurveTradeQuoter } from '../../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { FakeMessageSignatures } from '../../src/adapters/signatures/fake/fake-message-signatures.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import type { AppDeps } from '../../src/app/kit/deps.js';
import { TokenViewCache } from '../../src/app/tokens/token-view-cache.js';
import { CommitFeed } from '../../src/adapters/persistence/kit/commit-feed.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { getToken } from '../../src/app/tokens/get-token.js';
import { TokenNotFound } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { Stores, UnitOfWork } from '../../src/ports/unit-of-work.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { itWithServices } from '../support/services.js';
import { WALLET } from '../support/fixtures.js';
import { pollUntil, waitFor } from '../support/wait.js';

const clock = new FakeClock('2026-11-23T12:00:00Z');
const chain = new FakeTokenIssuer({ clock });

function deps(uow: UnitOfWork, tokenViews?: TokenViewCache): AppDeps {
  return {
    uow,
    clock,
    ids: new UlidIdGenerator(clock),
    tradeQuoter: new CurveTradeQuoter(),
    usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }),
    tokenIssuer: chain,
    signatures: new FakeMessageSignatures(), settings: DEFAULT_SETTINGS,
    ...(tokenViews ? { tokenViews } : {}),
  };
}

/** Counts the token reads behind a unit of work: a cached view reads no token. */
function counting(uow: UnitOfWork): { uow: UnitOfWork; builds: () => number } {
  let n = 0;
  const wrap = (s: Stores): Stores => {
    const tokens = Object.create(s.tokens) as Stores['tokens'];
    tokens.get = (id: string) => (n++, s.tokens.get(id));
    return { ...s, tokens };
  };
  return {
    uow: { run: (w) => uow.run((s) => w(wrap(s))), transaction: (w) => uow.transaction((s) => w(wrap(s))), close: () => uow.close() },
    builds: () => n,
  };
}

const create = (d: AppDeps, symbol = 'HOT') => createToken(d, { metadata: validateTokenMetadata({ name: 'Hot', symbol }), creator: WALLET, network: TESTNET });
const buy = async (d: AppDeps, tokenId: string, usd = 1_000_000n) =>
  buyToken(d, { plan: await planBuy(d, { kind: 'usd', tokenId, usdAmount: usd }, TESTNET), buyer: WALLET, network: TESTNET });

describe('TokenViewCache', () => {
  it('serves a view again until its token has a new event or a second has passed', async () => {
    const store = new MemoryUnitOfWork();
    const { uow, builds } = counting(store);
    const d = deps(uow, new TokenViewCache());
    const { tokenId } = await create(d);
    const { tokenId: other } = await create(d, 'OTHER');

    const first = await getToken(d, tokenId);
    expect(builds()).toBe(1);
    expect(await getToken(d, tokenId)).toEqual(first);
    expect(builds()).toBe(1);

    await buy(d, other); // another token's event: still the same view
    const afterOther = builds();
    expect(await getToken(d, tokenId)).toEqual(first);
    expect(builds()).toBe(afterOther);

    await buy(d, tokenId);
    const afterBuy = builds();
    const fresh = await getToken(d, tokenId);
    expect(builds()).toBe(afterBuy + 1);
    expect(fresh.trades24h).toBe(1);
    expect(fresh.curve.tokensSold).not.toBe(first.curve.tokensSold);

    clock.advance(1_000);
    await getToken(d, tokenId);
    expect(builds()).toBe(afterBuy + 2);
  });

  it('a read that arrives while a lookup is under way waits for the next one: it sees a buy committed before it', async () => {
    const store = new MemoryUnitOfWork();
    const d0 = deps(store);
    const { tokenId } = await create(d0);
    let stall: Promise<void> | null = null;
    let reachedStall!: () => void;
    const stalled = new Promise<void>((r) => (reachedStall = r));
    let lookups = 0;
    const gated: UnitOfWork = {
      run: (w) =>
        store.run((s) => {
          const events = Object.create(s.events) as Stores['events'];
          events.lastId = async (id?: string) => {
            lookups++;
            const answer = await s.events.lastId(id); // read now, answered later: a slow round trip
            if (stall) {
              reachedStall();
              await stall;
            }
            return answer;
          };
          return w({ ...s, events });
        }),
      transaction: (w) => store.transaction(w),
      close: () => store.close(),
    };
    const d = deps(gated, new TokenViewCache());
    expect((await getToken(d, tokenId)).trades24h).toBe(0); // kept
    let open!: () => void;
    stall = new Promise<void>((r) => (open = r));
    const early = getToken(d, tokenId); // its lookup reads the old last event, then stalls
    await stalled;
    await buy(d0, tokenId); // committed while that lookup is under way
    const late = getToken(d, tokenId); // arrives after the commit: must not take the early answer
    stall = null;
    open();
    expect((await early).trades24h).toBe(0); // asked before the buy: the kept view is right for it
    expect((await late).trades24h).toBe(1);
    expect(lookups).toBe(3);
  });

  /** A unit of work whose event-log lookups (the cache's check) are counted. */
  function lookupsOf(store: UnitOfWork): { uow: UnitOfWork; lookups: () => number } {
    let n = 0;
    const wrap = (s: Stores): Stores => ({ ...s, events: { ...s.events, lastId: (id?: string) => (n++, s.events.lastId(id)), append: (e) => s.events.append(e), readAfter: (a, f, l) => s.events.readAfter(a, f, l) } });
    return {
      uow: { changeFeed: store.changeFeed ?? null, run: (w) => store.run((s) => w(wrap(s))), transaction: (w) => store.transaction((s) => w(wrap(s))), close: () => store.close() },
      lookups: () => n,
    };
  }

  it('with a live change feed, a kept view is served with no lookup until the feed names its token; a fresh read checks', async () => {
    const store = new MemoryUnitOfWork();
    const { uow, lookups } = lookupsOf(store);
    const d = deps(uow, new TokenViewCache(undefined, store.changeFeed));
    const { tokenId } = await create(d);
    const { tokenId: other } = await create(d, 'OTHER');
    const first = await getToken(d, tokenId);
    const n = lookups();
    expect(await getToken(d, tokenId)).toEqual(first);
    await buy(d, other);
    expect(await getToken(d, tokenId)).toEqual(first);
    expect(lookups()).toBe(n); // no query at all

    await buy(d, tokenId); // announced as it commits: the next read must not be the kept view
    expect((await getToken(d, tokenId)).trades24h).toBe(1);
    expect(lookups()).toBe(n + 1);
    await getToken(d, tokenId);
    expect(lookups()).toBe(n + 1);
    await getToken(d, tokenId, { fresh: true }); // Cache-Control: no-cache
    expect(lookups()).toBe(n + 2);
    clock.advance(1_000); // the 24-hour figures move with time alone
    await getToken(d, tokenId);
    expect(lookups()).toBe(n + 3);
  });

  it('while the feed is not live every read checks the event log; once live again a checked view is trusted again', async () => {
    const store = new MemoryUnitOfWork();
    const { uow, lookups } = lookupsOf(store);
    let live = false;
    const feed = new CommitFeed(() => live);
    const d = deps(uow, new TokenViewCache(undefined, feed));
    const { tokenId } = await create(d);
    await getToken(d, tokenId);
    await getToken(d, tokenId);
    expect(lookups()).toBe(2);
    live = true;
    feed.emit(null); // (re)connected: whatever was kept is unproven
    await getToken(d, tokenId); // checked: unchanged, so the feed vouches for it from now on
    await getToken(d, tokenId);
    expect(lookups()).toBe(3);
  });

  it('a change announced while a view is being built keeps that view from being served on the feed’s word', async () => {
    const store = new MemoryUnitOfWork();
    const feed = new CommitFeed();
    const { tokenId } = await create(deps(store));
    let lookups = 0;
    let during: (() => void) | null = null;
    const uow: UnitOfWork = {
      run: (w) =>
        store.run((s) => {
          const events = { ...s.events, lastId: async (id?: string) => (lookups++, during?.(), s.events.lastId(id)), append: s.events.append.bind(s.events), readAfter: s.events.readAfter.bind(s.events) };
          return w({ ...s, events });
        }),
      transaction: (w) => store.transaction(w),
      close: () => store.close(),
    };
    const d = deps(uow, new TokenViewCache(undefined, feed));
    during = () => feed.emit(tokenId); // another process's commit, heard mid-build
    await getToken(d, tokenId);
    during = null;
    await getToken(d, tokenId);
    expect(lookups).toBe(2); // the second read could not take the first view on trust
    await getToken(d, tokenId);
    expect(lookups).toBe(2); // but once checked, it can
  });

  it('an unknown token is NOT_FOUND every time, and nothing is kept', async () => {
    const d = deps(new MemoryUnitOfWork(), new TokenViewCache());
    await expect(getToken(d, 'tok_01M847STKF1KCS1E2NG1AD180F')).rejects.toBeInstanceOf(TokenNotFound);
    await expect(getToken(d, 'tok_01M847STKF1KCS1E2NG1AD180F')).rejects.toBeInstanceOf(TokenNotFound);
  });

  async function twoProcesses(a: UnitOfWork, b: UnitOfWork) {
    const reader = deps(a, new TokenViewCache());
    const writer = deps(b, new TokenViewCache());
    const { tokenId } = await create(writer);
    const seen = await getToken(reader, tokenId);
    expect(await getToken(reader, tokenId)).toEqual(seen);
    await buy(writer, tokenId, 2_000_000n); // the other process
    const now = await getToken(reader, tokenId);
    expect(now.trades24h).toBe(1);
    expect(now.holders).toBe(1);
    expect(now.curve.tokensSold).toBe((await getToken(deps(a), tokenId)).curve.tokensSold);
    expect(now.curve.tokensSold).not.toBe(seen.curve.tokensSold);
  }

  /** Two units of work on one database — one SQLite file, or one PostgreSQL schema — standing in for two processes. */
  async function onTwoProcesses<T>(db: 'sqlite' | 'postgresql', fn: (a: MikroOrmUnitOfWork, b: MikroOrmUnitOfWork) => Promise<T>): Promise<T> {
    const dir = db === 'sqlite' ? mkdtempSync(join(tmpdir(), 'launchpad-view-cache-')) : null;
    const schema = `view_cache_${randomBytes(4).toString('hex')}`;
    const url = dir ? `sqlite:${join(dir, 'db.sqlite')}` : `${POSTGRES_URL}?schema=${schema}`;
    const a = await MikroOrmUnitOfWork.open({ url });
    const b = await MikroOrmUnitOfWork.open({ url });
    try {
      return await fn(a, b);
    } finally {
      await a.close();
      await b.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      else await dropSchema(schema);
    }
  }

  it('sees a buy made by another process on one SQLite file', () => onTwoProcesses('sqlite', twoProcesses));

  /**
   * Another process's buy reaches a reader that trusts its feed: no query per read before it, the
   * new view once the feed has told of the buy — at the first read after `told` resolves, where
   * the test knows when that is; else it waits for that read.
   */
  async function fedAcrossProcesses(a: MikroOrmUnitOfWork, b: MikroOrmUnitOfWork, told?: () => Promise<void>) {
    expect(a.changeFeed?.live).toBe(true);
    const { uow, lookups } = lookupsOf(a);
    const reader = deps(uow, new TokenViewCache({ maxEntries: 100, maxAgeMs: 60_000 }, a.changeFeed!));
    const writer = deps(b);
    const heard: (string | null)[] = [];
    a.changeFeed!.subscribe((t) => heard.push(t));
    const { tokenId } = await create(writer);
    // The creation's own announcement, heard after the view was built, would cost one more check.
    await waitFor("the reader's feed to tell of the creation", () => heard.includes(tokenId));
    const seen = await getToken(reader, tokenId);
    const n = lookups();
    for (let i = 0; i < 5; i++) expect(await getToken(reader, tokenId)).toEqual(seen);
    expect(lookups()).toBe(n);
    await buy(writer, tokenId, 2_000_000n); // the other process
    await (told ? told() : pollUntil(async () => (await getToken(reader, tokenId)).trades24h > 0));
    const now = await getToken(reader, tokenId);
    expect(now.trades24h).toBe(1);
    expect(now.curve.tokensSold).toBe((await getToken(deps(a), tokenId)).curve.tokensSold);
  }

  itWithServices('on PostgreSQL, hears another process’s buy through LISTEN/NOTIFY', () => onTwoProcesses('postgresql', (a, b) => fedAcrossProcesses(a, b)));

  it('on one SQLite file, hears another process’s buy from the event log within its poll', async () => {
    // One read of the log's tail begun after the buy is all it takes (the read under way when it
    // committed may have begun before: the second starts after it). Counted in reads, not in
    // milliseconds: the timer that reads every 50 ms runs late on a loaded machine.
    const tailRead = async (a: MikroOrmUnitOfWork) => {
      const tail = (a as unknown as { changes: SqliteChangeFeed }).changes;
      await tail.poll();
      await tail.poll();
    };
    await onTwoProcesses('sqlite', (a, b) => fedAcrossProcesses(a, b, () => tailRead(a)));
  });

  itWithServices('on PostgreSQL, a dropped listener makes the feed not live (and says forget everything) until it listens again', async () => {
    const schema = `view_feed_${randomBytes(4).toString('hex')}`;
    const a = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
    try {
      const heard: (string | null)[] = [];
      a.changeFeed!.subscribe((t) => heard.push(t));
      await a.run(async (s) => {
        await (s.tokens as unknown as { sql: { all(q: string, p: unknown[]): Promise<unknown> } }).sql.all(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?',
          [`launchpad changes ${schema}`],
        );
      });
      await pollUntil(() => !a.changeFeed!.live);
      expect(a.changeFeed!.live).toBe(false);
      expect(heard).toContain(null);
      await pollUntil(() => a.changeFeed!.live);
      expect(a.changeFeed!.live).toBe(true); // listening again, after a second
      expect(heard.filter((t) => t === null).length).toBeGreaterThanOrEqual(2);
    } finally {
      await a.close();
      await dropSchema(schema);
    }
  });

  itWithServices('sees a buy made by another process on one PostgreSQL schema', () => onTwoProcesses('postgresql', twoProcesses));
});
