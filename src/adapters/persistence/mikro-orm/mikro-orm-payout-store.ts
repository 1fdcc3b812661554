import type { Network } from '../../../domain/network.js';
import type { Payout, PayoutState } from '../../../domain/payout.js';
import type { PayoutStore } from '../../../ports/payout-store.js';
import { big, num } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';

const COLUMNS = ['payout_id', 'network', 'wallet', 'amount', 'reason', 'state', 'tx_hash', 'raw_tx', 'source_id', 'attempts', 'next_attempt_at', 'last_error', 'created_at', 'updated_at'];
const COLS = COLUMNS.join(', ');
const cols = (sql: Sql) => sql.columns(COLUMNS, ['amount']);

const rowToPayout = (r: Row): Payout => ({
  payoutId: String(r.payout_id),
  network: r.network as Network,
  wallet: String(r.wallet),
  amount: big(r.amount),
  reason: r.reason as Payout['reason'],
  state: r.state as PayoutState,
  txHash: (r.tx_hash as string | null) ?? null,
  rawTx: (r.raw_tx as string | null) ?? null,
  sourceId: String(r.source_id),
  attempts: Number(r.attempts),
  nextAttemptAt: ms(r.next_attempt_at),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: ms(r.created_at),
  updatedAt: ms(r.updated_at),
});

export class MikroOrmPayoutStore implements PayoutStore {
  constructor(private readonly sql: Sql) {}

  async enqueue(p: Payout): Promise<Payout> {
    const inserted = await this.sql.all(
      `insert into payouts (${COLS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (source_id) do nothing returning payout_id`,
      [
        p.payoutId, p.network, p.wallet, num(p.amount), p.reason, p.state, p.txHash, p.rawTx, p.sourceId, p.attempts,
        p.nextAttemptAt.getTime(), p.lastError, p.createdAt.getTime(), p.updatedAt.getTime(),
      ],
    );
    if (inserted.length === 1) return p;
    const r = await this.sql.one(`select ${cols(this.sql)} from payouts where source_id = ?`, [p.sourceId]);
    return rowToPayout(r!);
  }

  async get(payoutId: string): Promise<Payout | null> {
    const r = await this.sql.one(`select ${cols(this.sql)} from payouts where payout_id = ?`, [payoutId]);
    return r ? rowToPayout(r) : null;
  }

  async update(next: Payout, from: PayoutState): Promise<boolean> {
    const rows = await this.sql.all(
      `update payouts set state = ?, tx_hash = ?, raw_tx = ?, attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
       where payout_id = ? and state = ? returning payout_id`,
      [next.state, next.txHash, next.rawTx, next.attempts, next.nextAttemptAt.getTime(), next.lastError, next.updatedAt.getTime(), next.payoutId, from],
    );
    return rows.length === 1;
  }

  async due(now: Date, limit: number): Promise<Payout[]> {
    const rows = await this.sql.all(
      `select ${cols(this.sql)} from payouts where state in ('PENDING', 'SENT') and next_attempt_at <= ? order by created_at, payout_id limit ?`,
      [now.getTime(), limit],
    );
    return rows.map(rowToPayout);
  }
}
