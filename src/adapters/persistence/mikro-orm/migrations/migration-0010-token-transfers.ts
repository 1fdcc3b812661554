/**
 * Positions follow tokens that move on chain (docs/decisions/0020): the transfer indexer's cursor
 * per network and the transfers it booked (unique per transaction and place in it), the pulls
 * found by their transaction, and each position's `prebooked_in` — tokens a sell booked as
 * received by transfer before the indexer booked that transfer.
 *
 * Upgrading: a sell before this version booked such tokens without remembering it, and the
 * indexer starts from the first deployment, so it will book those transfers again. What a sell
 * added is exactly what the trades do not explain — balance − (Σ bought − Σ sold) — so that is
 * what each position starts with.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0010TokenTransfers extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const int64 = pg ? 'bigint' : 'integer';
    const text = (column: string) => (pg ? `${column}::text` : column);
    for (const sql of [
      `alter table positions add column prebooked_in ${money} not null default ${pg ? '0' : `'0'`}`,
      `create table transfer_cursors (
        network text primary key,
        block_number ${int64} not null,
        block_hash text,
        head_block ${int64} not null,
        confirmations integer not null,
        updated_at ${int64} not null
      )`,
      `create table token_transfers (
        network text not null,
        tx_hash text not null,
        tx_log_index integer not null,
        log_index integer not null,
        block_number ${int64} not null,
        block_hash text not null,
        token_id text not null,
        token text not null,
        from_address text not null,
        to_address text not null,
        amount ${money} not null,
        booked_at ${int64} not null,
        primary key (network, tx_hash, tx_log_index)
      )`,
      `create index token_transfers_block on token_transfers (network, block_number)`,
      `create index token_pulls_tx on token_pulls (network, tx_hash)`,
    ]) {
      await this.execute(sql);
    }
    // Token amounts pass 2^63: summed here as bigint, never by the database as a float.
    const net = new Map<string, bigint>();
    const trades = await this.execute(`select network, lower(wallet) as wallet, token_id, side, ${text('token_amount')} as amount from trades`);
    for (const t of trades) {
      const key = `${t.network}|${t.wallet}|${t.token_id}`;
      const amount = BigInt(String(t.amount));
      net.set(key, (net.get(key) ?? 0n) + (t.side === 'buy' ? amount : -amount));
    }
    const positions = await this.execute(`select network, wallet_lower, token_id, ${text('balance')} as balance from positions`);
    for (const p of positions) {
      const prebooked = BigInt(String(p.balance)) - (net.get(`${p.network}|${p.wallet_lower}|${p.token_id}`) ?? 0n);
      if (prebooked <= 0n) continue;
      await this.execute(`update positions set prebooked_in = ? where network = ? and wallet_lower = ? and token_id = ?`, [
        prebooked.toString(),
        p.network,
        p.wallet_lower,
        p.token_id,
      ]);
    }
  }
}
