import type { Earning } from '../../../domain/earnings.js';
import type { FeeRole } from '../../../domain/fees.js';
import type { Network } from '../../../domain/network.js';
import type { CreatorEarnings, EarningsLine, EarningsStore, UnpaidEarnings } from '../../../ports/earnings-store.js';
import type { Sql } from './sql.js';

const big = (v: unknown) => BigInt(String(v ?? 0));
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export class MikroOrmEarningsStore implements EarningsStore {
  constructor(private readonly sql: Sql) {}

  /** A trade's shares in one insert. */
  async accrue(earnings: readonly Earning[]): Promise<void> {
    if (earnings.length === 0) return;
    await this.sql.write(
      `insert into earnings (earning_id, network, wallet, wallet_lower, role, token_id, trade_id, amount, created_at, payout_id)
       values ${earnings.map(() => `(${marks(10)})`).join(', ')}`,
      earnings.flatMap((e) => [e.earningId, e.network, e.wallet, e.wallet.toLowerCase(), e.role, e.tokenId, e.tradeId, e.amount.toString(), e.createdAt.getTime(), e.payoutId]),
    );
  }

  async unpaid(roles: readonly FeeRole[], atLeast: bigint, limit: number): Promise<UnpaidEarnings[]> {
    const rows = await this.sql.all(
      `select network, min(wallet) as wallet, sum(amount) as amount from earnings
       where payout_id is null and role in (${marks(roles.length)})
       group by network, wallet_lower having sum(amount) >= ? order by min(created_at) limit ?`,
      [...roles, Number(atLeast), limit], // a number: SQLite compares a sum with text as text
    );
    return rows.map((r) => ({ network: r.network as Network, wallet: String(r.wallet), roles, amount: big(r.amount) }));
  }

  async claimUnpaid(network: Network, wallet: string, roles: readonly FeeRole[], payoutId: string): Promise<bigint> {
    const rows = await this.sql.all(
      `update earnings set payout_id = ? where network = ? and wallet_lower = ? and role in (${marks(roles.length)}) and payout_id is null returning amount`,
      [payoutId, network, wallet.toLowerCase(), ...roles],
    );
    return rows.reduce((sum, r) => sum + big(r.amount), 0n);
  }

  async ofWallet(wallet: string): Promise<EarningsLine[]> {
    const rows = await this.sql.all(
      `select e.network, e.token_id, e.role, sum(e.amount) as accrued,
              sum(case when p.state = 'CONFIRMED' then e.amount else 0 end) as paid
       from earnings e left join payouts p on p.payout_id = e.payout_id
       where e.wallet_lower = ? group by e.network, e.token_id, e.role order by e.token_id, e.role`,
      [wallet.toLowerCase()],
    );
    return rows.map((r) => ({ network: r.network as Network, tokenId: String(r.token_id), role: r.role as FeeRole, accrued: big(r.accrued), paid: big(r.paid) }));
  }

  async creatorTotals(tokenIds: readonly string[]): Promise<Map<string, bigint>> {
    const totals = new Map<string, bigint>(tokenIds.map((id) => [id, 0n]));
    if (tokenIds.length === 0) return totals;
    const rows = await this.sql.all(
      `select token_id, sum(amount) as amount from earnings where role = 'creator' and token_id in (${marks(tokenIds.length)}) group by token_id`,
      [...tokenIds],
    );
    for (const r of rows) totals.set(String(r.token_id), big(r.amount));
    return totals;
  }

  async topCreators(limit: number): Promise<CreatorEarnings[]> {
    const rows = await this.sql.all(
      `select min(wallet) as wallet, sum(amount) as accrued, count(distinct token_id) as tokens from earnings
       where role = 'creator' group by wallet_lower order by sum(amount) desc, wallet_lower limit ?`,
      [limit],
    );
    return rows.map((r) => ({ wallet: String(r.wallet), accrued: big(r.accrued), tokens: Number(r.tokens) }));
  }
}
