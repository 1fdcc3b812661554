/**
 * The ledger under concurrency on both drivers: 50 concurrent buys and sells on one token from
 * several wallets (on PostgreSQL through two separate ORM instances, standing in for two
 * processes); afterwards the books balance exactly. Plus migrations from empty, twice.
 */
import { FakeTokenIssuer } from '../../../src/adapters/token/fake/fake-token-issuer.js';
import { FakeMessageSignatures } from '../../../src/adapters/signatures/fake/fake-message-signatures.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/adapters/clock/fake/fake-clock.js';
import { UlidIdGenerator } from '../../../src/adapters/ids/ulid/ulid-id-generator.js';
import { MikroOrmUnitOfWork } from '../../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { CurveTradeQuoter } from '../../../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { DEFAULT_SETTINGS } from '../../../src/app/kit/default-settings.js';
import type { AppDeps } from '../../../src/app/kit/deps.js';
import { buyToken, planBuy } from '../../../src/app/trading/buy-token.js';
import { createToken } from '../../../src/app/tokens/create-token.js';
import { sellToken } from '../../../src/app/trading/sell-token.js';
import { realUsdReserve } from '../../../src/domain/curve.js';
import type { NewEvent } from '../../../src/domain/event.js';
import { DomainError } from '../../../src/domain/errors.js';
import { TESTNET } from '../../../src/domain/network.js';
import { validateTokenMetadata } from '../../../src/domain/token.js';
import type { UnitOfWork } from '../../../src/ports/unit-of-work.js';
import { settleTokens, signSell } from '../../support/onchain.js';
import { dropSchema, POSTGRES_URL } from '../../support/postgres.js';
import { describeWithServices, WITH_SERVICES } from '../../support/services.js';
import { waitFor } from '../../support/wait.js';
import { devAccount } from '../../support/x402-client.js';

const WALLETS = [1, 2, 3, 4, 5].map((i) => devAccount(i).address);
const clock = new FakeClock('2026-11-23T12:00:00Z');
/** One chain for every unit of work: the processes share it as they share the database. */
const chain = new FakeTokenIssuer({ clock });

function deps(uow: UnitOfWork): AppDeps {
  return { uow, clock, ids: new UlidIdGenerator(clock), tradeQuoter: new CurveTradeQuoter(), usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }), tokenIssuer: chain, signatures: new FakeMessageSignatures(), settings: DEFAULT_SETTINGS };
}

/** A first buy per wallet, its tokens delivered on chain, so the concurrent sells have some to sell. */
async function seed(d: AppDeps, tokenId: string) {
  for (const wallet of WALLETS) {
    const plan = await planBuy(d, { kind: 'usd', tokenId, usdAmount: 2_000_000n }, TESTNET);
    await buyToken(d, { plan, buyer: wallet, network: TESTNET });
  }
  await settleTokens(d);
}

/** 50 concurrent trades spread over the given units of work; refusals (balance, dust) are fine. */
async function trade(all: AppDeps[], tokenId: string) {
  await seed(all[0]!, tokenId);
  const token = (await all[0]!.uow.run((s) => s.tokens.get(tokenId)))!;
  let refused = 0;
  await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const d = all[i % all.length]!;
      const wallet = WALLETS[i % WALLETS.length]!;
      try {
        if (i % 3 === 2) {
          const tokens = 50_000n * 10n ** 18n;
          const authorization = await signSell({
            wallet,
            token: { network: TESTNET, address: token.address!, name: token.name },
            custody: chain.custody(TESTNET),
            tokens,
            now: clock.now(),
          });
          await sellToken(d, { tokenId, tokens, seller: wallet, network: TESTNET, authorization });
        } else {
          const plan = await planBuy(d, { kind: 'usd', tokenId, usdAmount: BigInt(1_000_000 + i * 10_007) }, TESTNET);
          await buyToken(d, { plan, buyer: wallet, network: TESTNET });
        }
      } catch (e) {
        if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
        refused++;
      }
    }),
  );
  return refused;
}

async function checkBooks(d: AppDeps, tokenId: string) {
  await d.uow.run(async (s) => {
    const token = (await s.tokens.get(tokenId))!;
    const positions = await Promise.all(WALLETS.map((w) => s.positions.get(TESTNET, w, tokenId)));
    const balances = positions.reduce((sum, p) => sum + (p?.balance ?? 0n), 0n);
    expect(balances).toBe(token.curve.tokensSold);
    const trades = [];
    for (let cursor: string | undefined, guard = 0; guard < 20; guard++) {
      const page = await s.trades.listByToken(tokenId, { limit: 100, cursor });
      trades.push(...page.items);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const netIn = trades.filter((t) => t.side === 'buy').reduce((sum, t) => sum + t.usdAmount - t.feeUsd, 0n);
    const grossOut = trades.filter((t) => t.side === 'sell').reduce((sum, t) => sum + t.usdAmount, 0n);
    expect(realUsdReserve(token.params, token.curve)).toBe(netIn - grossOut);
    const sold = trades.reduce((sum, t) => sum + (t.side === 'buy' ? t.tokenAmount : -t.tokenAmount), 0n);
    expect(sold).toBe(token.curve.tokensSold);
    const events = await s.events.readAfter(0, {}, 10_000);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'trade.executed')).toHaveLength(trades.length);
    expect(trades.length).toBeGreaterThan(25);
  });
}

describe('MikroORM on SQLite under concurrency', () => {
  it('50 concurrent buys and sells keep the books exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-conc-'));
    const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'c.db')}` });
    try {
      const d = deps(uow);
      const { tokenId } = await createToken(d, { metadata: validateTokenMetadata({ name: 'C', symbol: 'C' }), creator: WALLETS[0]!, network: TESTNET });
      await trade([d], tokenId);
      await checkBooks(d, tokenId);
    } finally {
      await uow.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two units of work on one SQLite file (two processes) serialise their writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-conc2-'));
    const url = `sqlite:${join(dir, 'c.db')}`;
    const a = await MikroOrmUnitOfWork.open({ url });
    const b = await MikroOrmUnitOfWork.open({ url });
    try {
      const [da, db] = [deps(a), deps(b)];
      const { tokenId } = await createToken(da, { metadata: validateTokenMetadata({ name: 'C', symbol: 'C' }), creator: WALLETS[0]!, network: TESTNET });
      await trade([da, db], tokenId);
      await checkBooks(da, tokenId);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite checkpoints off the writer', () => {
  const event: NewEvent = { type: 'token.created', network: TESTNET, tokenId: null, data: { pad: 'x'.repeat(2_000) }, createdAt: new Date(0) };

  it('keep the write-ahead log small without the writer checkpointing, and every write reaches the database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-wal-'));
    const path = join(dir, 'w.db');
    const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${path}`, checkpointEvery: 20 });
    try {
      // ≈ 3 pages a unit: 1,500 units unchecked would leave a log of ≈ 18 MB. The writes come in
      // rounds of 100, each waiting for the checkpointer's round after it — a condition, not a
      // time: how far the log grows must not depend on how busy the machine is (a starved
      // checkpointer let a burst of 1,500 reach 16 MB).
      const checkpointer = (uow as unknown as { checkpointer: { checkpointing: boolean; writes: number } }).checkpointer;
      for (let round = 0; round < 15; round++) {
        for (let i = 0; i < 100; i++) await uow.transaction((s) => s.events.append(event));
        await waitFor('the checkpoint round after 100 writes', () => checkpointer.writes === 0 && !checkpointer.checkpointing);
      }
      // The log's file keeps its high-water mark: about one round's writes (≈ 1.2 MB) past a
      // checkpoint, far under the 18 MB of a log no one checkpoints.
      expect(statSync(`${path}-wal`).size).toBeLessThan(6 * 2 ** 20);
      expect(statSync(path).size).toBeGreaterThan(3 * 2 ** 20); // the events are in the file itself
      expect(await uow.run((s) => s.events.lastId())).toBe(1_500);
    } finally {
      await uow.close();
    }
    // Nothing was lost with the log: the file alone, reopened, has every event.
    const again = await MikroOrmUnitOfWork.open({ url: `sqlite:${path}` });
    try {
      expect(await again.run((s) => s.events.lastId())).toBe(1_500);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describeWithServices('PostgreSQL named statements', () => {
  it('are planned once per connection and give the same rows as the first call', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const uow = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}`, poolSize: 1 });
    try {
      for (let i = 0; i < 3; i++) await uow.transaction((s) => s.events.append({ type: 'token.created', network: TESTNET, tokenId: null, data: { i }, createdAt: new Date(i) }));
      expect((await uow.run((s) => s.events.readAfter(0, {}, 10))).map((e) => e.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
      const prepared = await uow.run((s) => (s.tokens as unknown as { sql: { all(q: string): Promise<Array<{ n: unknown }>> } }).sql.all('select count(*)::int as n from pg_prepared_statements'));
      expect(Number(prepared[0]!.n)).toBeGreaterThanOrEqual(4); // begin, the append, commit, the read
    } finally {
      await uow.close();
      await dropSchema(schema);
    }
  });
});

describeWithServices('MikroORM on PostgreSQL under concurrency', () => {
  it('50 concurrent buys and sells through two ORM instances keep the books exact', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const a = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
    const b = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
    try {
      const [da, db] = [deps(a), deps(b)];
      const { tokenId } = await createToken(da, { metadata: validateTokenMetadata({ name: 'C', symbol: 'C' }), creator: WALLETS[0]!, network: TESTNET });
      await trade([da, db], tokenId);
      await checkBooks(db, tokenId);
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });
});

describe('migrations', () => {
  it('take an empty SQLite and PostgreSQL to the latest schema, and running them again changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-mig-'));
    const schema = `t_${randomBytes(6).toString('hex')}`;
    try {
      for (const url of [`sqlite:${join(dir, 'm.db')}`, ...(WITH_SERVICES ? [`${POSTGRES_URL}?schema=${schema}`] : [])]) {
        const first = await MikroOrmUnitOfWork.open({ url });
        expect(await first.migrate()).toBe(0); // open() already ran them
        await first.transaction((s) => s.events.append({ type: 'token.created', network: TESTNET, tokenId: null, data: {}, createdAt: new Date(0) }));
        await first.close();
        const again = await MikroOrmUnitOfWork.open({ url });
        expect(await again.migrate()).toBe(0);
        expect(await again.run((s) => s.events.lastId())).toBe(1); // nothing was recreated
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (WITH_SERVICES) await dropSchema(schema);
    }
  });
});

describe('a database that cannot answer', () => {
  it('is SERVICE_UNAVAILABLE (503), not an internal error', async () => {
    const { asUnavailable } = await import('../../../src/adapters/persistence/mikro-orm/unavailable.js');
    for (const e of [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), Object.assign(new Error('x'), { code: 'SQLITE_BUSY' }), Object.assign(new Error('x'), { name: 'KnexTimeoutError' })]) {
      expect(asUnavailable(e)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 });
      expect((asUnavailable(e) as Error).cause).toBe(e); // kept for the log line
    }
    const other = new Error('syntax error');
    expect(asUnavailable(other)).toBe(other);
  });
});
