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
import { CurveTradeQuoter } from '../../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { DEFAULT_SETTINGS } from '../../src/app/default-settings.js';
import type { AppDeps } from '../../src/app/deps.js';
import { TokenViewCache } from '../../src/app/token-view-cache.js';
import { buyToken, planBuy } from '../../src/app/use-cases/buy-token.js';
import { createToken } from '../../src/app/use-cases/create-token.js';
import { getToken } from '../../src/app/use-cases/get-token.js';
import { TokenNotFound } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { Stores, UnitOfWork } from '../../src/ports/unit-of-work.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { WALLET } from '../support/fixtures.js';

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
    settings: DEFAULT_SETTINGS,
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
    uow: { read: (w) => uow.read((s) => w(wrap(s))), transaction: (w) => uow.transaction((s) => w(wrap(s))), close: () => uow.close() },
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
    let lookups = 0;
    const gated: UnitOfWork = {
      read: (w) =>
        store.read((s) => {
          const events = Object.create(s.events) as Stores['events'];
          events.lastId = async (id?: string) => {
            lookups++;
            const answer = await s.events.lastId(id); // read now, answered later: a slow round trip
            if (stall) await stall;
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
    await new Promise((r) => setTimeout(r, 10));
    await buy(d0, tokenId); // committed while that lookup is under way
    const late = getToken(d, tokenId); // arrives after the commit: must not take the early answer
    stall = null;
    open();
    expect((await early).trades24h).toBe(0); // asked before the buy: the kept view is right for it
    expect((await late).trades24h).toBe(1);
    expect(lookups).toBe(3);
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

  it('sees a buy made by another process on one SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-view-cache-'));
    const url = `sqlite:${join(dir, 'db.sqlite')}`;
    const a = await MikroOrmUnitOfWork.open({ url });
    const b = await MikroOrmUnitOfWork.open({ url });
    try {
      await twoProcesses(a, b);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sees a buy made by another process on one PostgreSQL schema', async () => {
    const schema = `view_cache_${randomBytes(4).toString('hex')}`;
    const url = `${POSTGRES_URL}?schema=${schema}`;
    const a = await MikroOrmUnitOfWork.open({ url });
    const b = await MikroOrmUnitOfWork.open({ url });
    try {
      await twoProcesses(a, b);
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });
});
