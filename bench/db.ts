/**
 * `npm run bench:db`: trades applied per second (token lock + trade + position + event, through
 * the use case and the MikroORM unit of work) next to the raw driver's single-row insert
 * transaction rate on the same database, as ratios measured in one run. Target ≥ 0.25×.
 */
import { FakeTokenIssuer } from '../src/adapters/token/fake/fake-token-issuer.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { SystemClock } from '../src/adapters/clock/system/system-clock.js';
import { UlidIdGenerator } from '../src/adapters/ids/ulid/ulid-id-generator.js';
import { MikroOrmUnitOfWork } from '../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { CurveTradeQuoter } from '../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { DEFAULT_SETTINGS } from '../src/app/default-settings.js';
import type { AppDeps } from '../src/app/deps.js';
import { buyToken, type BuyPlan } from '../src/app/use-cases/buy-token.js';
import { createToken } from '../src/app/use-cases/create-token.js';
import { TESTNET } from '../src/domain/network.js';
import { validateTokenMetadata } from '../src/domain/token.js';
import { dropSchema, POSTGRES_URL } from '../test/support/postgres.js';

const DURATION = Number(process.env.BENCH_MS ?? 3_000);

async function timed(fn: () => Promise<void>): Promise<number> {
  const deadline = Date.now() + DURATION;
  const started = Date.now();
  let n = 0;
  while (Date.now() < deadline) {
    await fn();
    n++;
  }
  return (n / (Date.now() - started)) * 1000;
}

async function tradesPerSecond(url: string): Promise<number> {
  const uow = await MikroOrmUnitOfWork.open({ url });
  try {
    const clock = new SystemClock();
    const deps: AppDeps = { uow, clock, ids: new UlidIdGenerator(clock), tradeQuoter: new CurveTradeQuoter(), usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }), tokenIssuer: new FakeTokenIssuer({ clock }), settings: DEFAULT_SETTINGS };
    const { tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Bench', symbol: 'B' }), creator: '0x' + '1'.repeat(40), network: TESTNET });
    const plan: BuyPlan = { tokenId, network: TESTNET, grossUsd: 10_000n, minTokensOut: 0n, quoteId: null };
    let i = 0;
    return await timed(async () => {
      await buyToken(deps, { plan, buyer: `0x${(i++ % 50).toString(16).padStart(40, '0')}`, network: TESTNET });
    });
  } finally {
    await uow.close();
  }
}

async function rawSqlite(path: string): Promise<number> {
  const db = new sqlite3.Database(path);
  const run = (sql: string, params: unknown[] = []) => new Promise<void>((res, rej) => db.run(sql, params, (e) => (e ? rej(e) : res())));
  for (const p of ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 5000']) await run(p);
  await run('create table raw (id integer primary key, v text)');
  const rate = await timed(async () => {
    await run('begin immediate');
    await run('insert into raw (v) values (?)', ['x']);
    await run('commit');
  });
  db.close();
  return rate;
}

async function rawPostgres(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`create schema "${schema}"`);
  await client.query(`create table "${schema}".raw (id bigserial primary key, v text)`);
  const rate = await timed(async () => {
    await client.query('begin');
    await client.query(`insert into "${schema}".raw (v) values ($1)`, ['x']);
    await client.query('commit');
  });
  await client.end();
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
const rows: string[] = [];
try {
  const sqliteTrades = await tradesPerSecond(`sqlite:${join(dir, 'bench.db')}`);
  const sqliteRaw = await rawSqlite(join(dir, 'raw.db'));
  rows.push(`SQLite:     ${sqliteTrades.toFixed(0)} trades/s, raw insert tx ${sqliteRaw.toFixed(0)}/s, ratio ${(sqliteTrades / sqliteRaw).toFixed(3)}   target ≥ 0.25`);
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const rawSchema = `${schema}_raw`;
  try {
    const pgTrades = await tradesPerSecond(`${POSTGRES_URL}?schema=${schema}`);
    const pgRaw = await rawPostgres(rawSchema);
    rows.push(`PostgreSQL: ${pgTrades.toFixed(0)} trades/s, raw insert tx ${pgRaw.toFixed(0)}/s, ratio ${(pgTrades / pgRaw).toFixed(3)}   target ≥ 0.25`);
  } finally {
    await dropSchema(schema);
    await dropSchema(rawSchema);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(rows.join('\n'));
