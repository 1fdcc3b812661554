/** Any custody transaction table (token_pulls, pool_swaps): one transaction per payment, replaced by compare-and-set. */
import type { CustodyTransaction, CustodyTransactionStore } from '../../../ports/custody-transaction-store.js';
import { ms, type Row, type Sql } from './sql.js';

const COLUMNS = 'payment_id, network, token_id, tx_hash, raw_tx, created_at';

export class MikroOrmCustodyTransactionStore<T extends CustodyTransaction> implements CustodyTransactionStore<T> {
  constructor(
    protected readonly sql: Sql,
    /** A table of COLUMNS, keyed by payment_id. */
    private readonly table: 'token_pulls' | 'pool_swaps',
  ) {}

  protected readRow(r: Row): T {
    return {
      paymentId: String(r.payment_id),
      network: String(r.network),
      tokenId: String(r.token_id),
      txHash: String(r.tx_hash),
      rawTx: String(r.raw_tx),
      createdAt: ms(r.created_at),
    } as T;
  }

  protected async one(where: string, params: unknown[]): Promise<T | null> {
    const r = await this.sql.one(`select ${COLUMNS} from ${this.table} where ${where}`, params);
    return r ? this.readRow(r) : null;
  }

  async record(t: T): Promise<T> {
    const inserted = await this.sql.all(
      `insert into ${this.table} (${COLUMNS}) values (?, ?, ?, ?, ?, ?) on conflict (payment_id) do nothing returning payment_id`,
      [t.paymentId, t.network, t.tokenId, t.txHash, t.rawTx, t.createdAt.getTime()],
    );
    return inserted.length === 1 ? t : (await this.get(t.paymentId))!;
  }

  get(paymentId: string): Promise<T | null> {
    return this.one('payment_id = ?', [paymentId]);
  }

  async replace(next: T, fromTxHash: string): Promise<boolean> {
    const rows = await this.sql.all(
      `update ${this.table} set tx_hash = ?, raw_tx = ?, created_at = ? where payment_id = ? and tx_hash = ? returning payment_id`,
      [next.txHash, next.rawTx, next.createdAt.getTime(), next.paymentId, fromTxHash],
    );
    return rows.length === 1;
  }
}
