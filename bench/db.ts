/**
 * `npm run bench:db`: trades applied per second (token lock + trade + position + event, through
 * the use case and the MikroORM unit of work) next to the raw driver's single-row insert
 * transaction rate on the same database, as ratios measured in interleaved rounds of one run.
 * Targets ≥ 0.35× (SQLite), ≥ 0.5× (PostgreSQL). `npm run bench` runs it too (benchDb). The raw
 * SQLite side runs on the service's own driver, better-sqlite3, with its statements prepared once.
 */
import { FakeTokenIssuer } from '../src/adapters/token/fake/fake-token-issuer.js';
import { FakeMessageSignatures } from '../src/adapters/signatures/fake/fake-message-signatures.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createRequire } from 'node:module';
import { SystemClock } from '../src/adapters/clock/system/system-clock.js';
import { UlidIdGenerator } from '../src/adapters/ids/ulid/ulid-id-generator.js';
import { MikroOrmUnitOfWork } from '../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { CurveTradeQuoter } from '../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { DEFAULT_SETTINGS } from '../src/app/kit/default-settings.js';
import type { AppDeps } from '../src/app/kit/deps.js';
import { buyToken, type BuyPlan } from '../src/app/trading/buy-token.js';
import { createToken } from '../src/app/tokens/create-token.js';
import { TESTNET } from '../src/domain/network.js';
import { validateTokenMetadata } from '../src/domain/token.js';
import { commandLine } from '../scripts/command-line.js';
import { dropSchema, POSTGRES_URL } from '../test/support/postgres.js';
import { median } from './load.js';

/** Calls per second of `fn` over `durationMs`, after `WARM_UP` untimed calls (the JIT, the caches, the statements prepared). */
const WARM_UP = 200;
async function timed(durationMs: number, fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await fn();
  const deadline = Date.now() + durationMs;
  const started = Date.now();
  let n = 0;
  while (Date.now() < deadline) {
    await fn();
    n++;
  }
  return (n / (Date.now() - started)) * 1000;
}

async function tradesPerSecond(url: string, durationMs: number): Promise<number> {
  const uow = await MikroOrmUnitOfWork.open({ url });
  try {
    const clock = new SystemClock();
    const deps: AppDeps = { uow, clock, ids: new UlidIdGenerator(clock), tradeQuoter: new CurveTradeQuoter(), usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }), tokenIssuer: new FakeTokenIssuer({ clock }), signatures: new FakeMessageSignatures(), settings: DEFAULT_SETTINGS };
    const { tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Bench', symbol: 'B' }), creator: '0x' + '1'.repeat(40), network: TESTNET });
    const plan: BuyPlan = { tokenId, network: TESTNET, grossUsd: 10_000n, minTokensOut: 0n, quoteId: null };
    let i = 0;
    return await timed(durationMs, async () => {
      await buyToken(deps, { plan, buyer: `0x${(i++ % 50).toString(16).padStart(40, '0')}`, network: TESTNET });
    });
  } finally {
    await uow.close();
  }
}

/** The service's SQLite driver, better-sqlite3 (decision 0051): the raw side runs on the same one. */
type RawSqlite = { exec(sql: string): unknown; prepare(sql: string): { run(...p: unknown[]): unknown }; close(): unknown };
const BetterSqlite = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => RawSqlite;

async function rawSqlite(path: string, durationMs: number): Promise<number> {
  const db = new BetterSqlite(path);
  for (const p of ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 5000']) db.exec(p);
  db.exec('create table raw (id integer primary key, v text)');
  const [begin, insert, commit] = ['begin immediate', 'insert into raw (v) values (?)', 'commit'].map((sql) => db.prepare(sql));
  const rate = await timed(durationMs, async () => {
    begin!.run();
    insert!.run('x');
    commit!.run();
  });
  db.close();
  return rate;
}

async function rawPostgres(schema: string, durationMs: number): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`create schema "${schema}"`);
  await client.query(`create table "${schema}".raw (id bigserial primary key, v text)`);
  const rate = await timed(durationMs, async () => {
    await client.query('begin');
    await client.query(`insert into "${schema}".raw (v) values ($1)`, ['x']);
    await client.query('commit');
  });
  await client.end();
  return rate;
}

/**
 * RSS of this process (the use case and the unit of work run here) every `every` trades over `n`
 * trades on one SQLite file: the memory target is growth ≤ 10% over the last half.
 */
export async function soakTrades(n: number, every: number): Promise<{ samplesMiB: number[]; seconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-soak-'));
  const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'soak.db')}` });
  try {
    const clock = new SystemClock();
    const deps: AppDeps = { uow, clock, ids: new UlidIdGenerator(clock), tradeQuoter: new CurveTradeQuoter(), usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }), tokenIssuer: new FakeTokenIssuer({ clock }), signatures: new FakeMessageSignatures(), settings: DEFAULT_SETTINGS };
    // A token per 10,000 trades, so the curve never runs out of supply.
    let tokenId = '';
    const samplesMiB = [process.memoryUsage().rss / 2 ** 20];
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      if (i % 10_000 === 0) ({ tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Soak', symbol: 'S' }), creator: '0x' + '1'.repeat(40), network: TESTNET }));
      const plan: BuyPlan = { tokenId, network: TESTNET, grossUsd: 10_000n, minTokensOut: 0n, quoteId: null };
      await buyToken(deps, { plan, buyer: `0x${(i % 500).toString(16).padStart(40, '0')}`, network: TESTNET });
      if ((i + 1) % every === 0) samplesMiB.push(process.memoryUsage().rss / 2 ** 20);
    }
    return { samplesMiB, seconds: (Date.now() - started) / 1000 };
  } finally {
    await uow.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DbFigure {
  /** Median over rounds of trades/s ÷ raw insert tx/s, measured back to back in each round. */
  ratio: number;
  ratios: number[];
  tradesPerSecond: number[];
  rawPerSecond: number[];
}

/**
 * Interleaved rounds per database: the use case's trades, then the raw driver's insert tx, each
 * on a fresh database so neither inherits the other's file or table growth.
 */
export async function benchDb(o: { rounds: number; durationMs: number; log: (line: string) => void }): Promise<{ sqlite: DbFigure; postgresql: DbFigure }> {
  const figure = (): DbFigure => ({ ratio: 0, ratios: [], tradesPerSecond: [], rawPerSecond: [] });
  const sqlite = figure();
  const postgresql = figure();
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
  try {
    for (let round = 0; round < o.rounds; round++) {
      const trades = await tradesPerSecond(`sqlite:${join(dir, `bench-${round}.db`)}`, o.durationMs);
      const raw = await rawSqlite(join(dir, `raw-${round}.db`), o.durationMs);
      sqlite.tradesPerSecond.push(trades);
      sqlite.rawPerSecond.push(raw);
      sqlite.ratios.push(trades / raw);
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      const rawSchema = `${schema}_raw`;
      try {
        const pgTrades = await tradesPerSecond(`${POSTGRES_URL}?schema=${schema}`, o.durationMs);
        const pgRaw = await rawPostgres(rawSchema, o.durationMs);
        postgresql.tradesPerSecond.push(pgTrades);
        postgresql.rawPerSecond.push(pgRaw);
        postgresql.ratios.push(pgTrades / pgRaw);
      } finally {
        await dropSchema(schema);
        await dropSchema(rawSchema);
      }
      o.log(
        `[db] round ${round + 1}/${o.rounds}: SQLite ${trades.toFixed(0)} trades/s vs raw ${raw.toFixed(0)}/s; ` +
          `PostgreSQL ${postgresql.tradesPerSecond.at(-1)!.toFixed(0)} trades/s vs raw ${postgresql.rawPerSecond.at(-1)!.toFixed(0)}/s`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const f of [sqlite, postgresql]) f.ratio = median(f.ratios);
  return { sqlite, postgresql };
}


if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  // No flags: rounds and their length come from BENCH_ROUNDS and BENCH_MS.
  commandLine('usage: npm run bench:db   (BENCH_ROUNDS=3 BENCH_MS=3000 by default)', {});
  const { sqlite, postgresql } = await benchDb({ rounds: Number(process.env.BENCH_ROUNDS ?? 3), durationMs: Number(process.env.BENCH_MS ?? 3_000), log: console.log });
  console.log(`SQLite:     ratio ${sqlite.ratio.toFixed(3)} (median of ${sqlite.ratios.length})   target ≥ 0.35`);
  console.log(`PostgreSQL: ratio ${postgresql.ratio.toFixed(3)} (median of ${postgresql.ratios.length})   target ≥ 0.5`);
}
