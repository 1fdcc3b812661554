/** A store's table written once (docs/decisions/0044): the statements made from it, on both dialects. */
import { describe, expect, it } from 'vitest';
import { Sql } from '../../../src/adapters/persistence/mikro-orm/sql.js';
import { exactInt, Table, writeOnly } from '../../../src/adapters/persistence/mikro-orm/table.js';

interface Holding {
  wallet: string;
  amount: bigint;
  block: bigint | null;
}

const HOLDINGS = new Table<Holding>(
  'holdings',
  {
    wallet: (h) => h.wallet,
    wallet_lower: writeOnly((h) => h.wallet.toLowerCase()),
    amount: exactInt((h) => h.amount),
    block: exactInt((h) => h.block),
  },
  (r) => ({ wallet: String(r.wallet), amount: BigInt(String(r.amount)), block: r.block === null ? null : BigInt(String(r.block)) }),
);
const none = async () => [];

describe('Table', () => {
  it('inserts every column, written as declared: exact integers as decimal text, null kept', () => {
    expect(HOLDINGS.insert).toBe('insert into holdings (wallet, wallet_lower, amount, block) values (?, ?, ?, ?)');
    expect(HOLDINGS.values({ wallet: '0xAbC', amount: 2n ** 70n, block: null })).toEqual(['0xAbC', '0xabc', '1180591620717411303424', null]);
  });

  it('selects what the row mapper reads: exact columns as text on PostgreSQL, never the write-only keys', () => {
    expect(HOLDINGS.select(new Sql(none, 'sqlite'))).toBe('wallet, amount, block');
    expect(HOLDINGS.select(new Sql(none, 'postgresql'), 'h.')).toBe('h.wallet, h.amount::text as amount, h.block::text as block');
  });

  it('upserts every other column, or the ones named, and updates some columns by name', () => {
    expect(HOLDINGS.upsert(['wallet_lower'])).toBe(
      `${HOLDINGS.insert} on conflict (wallet_lower) do update set wallet = excluded.wallet, amount = excluded.amount, block = excluded.block`,
    );
    expect(HOLDINGS.upsert(['wallet_lower'], ['amount'])).toBe(`${HOLDINGS.insert} on conflict (wallet_lower) do update set amount = excluded.amount`);
    expect(HOLDINGS.update(['amount', 'block'])).toBe('update holdings set amount = ?, block = ?');
    expect(HOLDINGS.valuesOf(['amount', 'block'], { wallet: 'w', amount: 5n, block: 7n })).toEqual(['5', '7']);
  });

  it('refuses a column it does not have', () => {
    expect(() => HOLDINGS.update(['balance'])).toThrow('holdings has no column balance');
    expect(() => HOLDINGS.upsert(['wallet'], ['balance'])).toThrow('holdings has no column balance');
  });
});
