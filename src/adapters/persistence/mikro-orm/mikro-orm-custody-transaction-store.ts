/** Any custody transaction table (token_pulls, pool_swaps): one transaction per payment, replaced by compare-and-set. */
import { isNotSent, type CustodyTransaction, type CustodyTransactionStore, type NotSent, type RecordedRefusal } from '../../../ports/custody-transaction-store.js';
import type { PoolSwap } from '../../../ports/pool-swap-store.js';
import { big } from './exact-bigint-type.js';
import { ms, type Sql } from './sql.js';
import { exactInt, Table } from './table.js';

/**
 * A refusal (`NotSent`) is a row with no transaction: empty `tx_hash` and `raw_tx`, which no
 * signed transaction has — so it holds the payment's key like one, and no hash ever finds it.
 */
const NONE = '';

/** A buy swap's terms, as written (decision 0061); null for a pull, a sell's swap, a refusal. */
const termsOf = (t: PoolSwap | NotSent) => (isNotSent(t) ? undefined : t.buy);

/** token_pulls and pool_swaps share one shape; a swap also keeps a buy's terms. */
const tableOf = (name: 'token_pulls' | 'pool_swaps') =>
  new Table<PoolSwap | NotSent>(
    name,
    {
      payment_id: (t) => t.paymentId,
      network: (t) => t.network,
      token_id: (t) => t.tokenId,
      tx_hash: (t) => (isNotSent(t) ? NONE : t.txHash),
      raw_tx: (t) => (isNotSent(t) ? NONE : t.rawTx),
      created_at: (t) => t.createdAt.getTime(),
      refusal: (t) => (isNotSent(t) && t.refusal ? JSON.stringify(t.refusal) : null), // JSON already (recordOf)
      ...(name === 'pool_swaps'
        ? {
            gross_usd: exactInt<PoolSwap | NotSent>((t) => termsOf(t)?.grossUsd ?? null),
            amount_in: exactInt<PoolSwap | NotSent>((t) => termsOf(t)?.amountIn ?? null),
            min_tokens_out: exactInt<PoolSwap | NotSent>((t) => termsOf(t)?.minTokensOut ?? null),
          }
        : {}),
    },
    (r) => {
      const recorded = { paymentId: String(r.payment_id), network: String(r.network), tokenId: String(r.token_id), createdAt: ms(r.created_at) };
      if (r.tx_hash === NONE) return { ...recorded, notSent: true as const, ...(typeof r.refusal === 'string' ? { refusal: JSON.parse(r.refusal) as RecordedRefusal } : {}) };
      const tx = { ...recorded, txHash: String(r.tx_hash), rawTx: String(r.raw_tx) };
      return r.gross_usd === null || r.gross_usd === undefined ? tx : { ...tx, buy: { grossUsd: big(r.gross_usd), amountIn: big(r.amount_in), minTokensOut: big(r.min_tokens_out) } };
    },
  );
const TABLES = { token_pulls: tableOf('token_pulls'), pool_swaps: tableOf('pool_swaps') };

export class MikroOrmCustodyTransactionStore<T extends CustodyTransaction> implements CustodyTransactionStore<T> {
  private readonly table: Table<PoolSwap | NotSent>;

  constructor(
    protected readonly sql: Sql,
    /** A table keyed by payment_id. */
    name: keyof typeof TABLES,
  ) {
    this.table = TABLES[name];
  }

  protected async one(where: string, params: unknown[]): Promise<T | NotSent | null> {
    const r = await this.sql.one(`select ${this.table.select(this.sql)} from ${this.table.name} where ${where}`, params);
    return r ? (this.table.fromRow(r) as T | NotSent) : null;
  }

  async record(t: T | NotSent): Promise<T | NotSent> {
    const inserted = await this.sql.all(`${this.table.insert} on conflict (payment_id) do nothing returning payment_id`, this.table.values(t));
    return inserted.length === 1 ? t : (await this.get(t.paymentId))!;
  }

  refuse(refusal: NotSent): Promise<T | NotSent> {
    return this.record(refusal);
  }

  get(paymentId: string): Promise<T | NotSent | null> {
    return this.one('payment_id = ?', [paymentId]);
  }

  /** The record's every column but its key is the new transaction's (a swap's terms with it). */
  async replace(next: T, fromTxHash: string): Promise<boolean> {
    if (fromTxHash === NONE) return false; // a refusal is never replaced
    const columns = this.table.columns.filter((c) => c !== 'payment_id');
    const rows = await this.sql.all(`${this.table.update(columns)} where payment_id = ? and tx_hash = ? returning payment_id`, [
      ...this.table.valuesOf(columns, next),
      next.paymentId,
      fromTxHash,
    ]);
    return rows.length === 1;
  }
}
