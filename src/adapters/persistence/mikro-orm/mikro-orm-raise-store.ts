/** Fair launches' raises and pledges in SQL (tables raises and pledges, migration 0017). */
import type { Network } from '../../../domain/network.js';
import type { HeldAuthorizationRecord, Pledge, PledgeState, Raise, RaiseState } from '../../../domain/raise.js';
import type { RaiseStore } from '../../../ports/raise-store.js';
import { big } from './exact-bigint-type.js';
import { ms, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const RAISES = new Table<Raise>(
  'raises',
  {
    token_id: (r) => r.tokenId,
    network: (r) => r.network,
    state: (r) => r.state,
    goal_usd: exactInt((r) => r.goalUsd),
    max_per_wallet_usd: exactInt((r) => r.maxPerWalletUsd),
    ends_at: (r) => r.endsAt.getTime(),
    collected_usd: exactInt((r) => r.collectedUsd),
    tokens_bought: exactInt((r) => r.tokensBought),
    remainder_tokens: exactInt((r) => r.remainderTokens),
    trade_id: (r) => r.tradeId,
    failure: (r) => r.failure,
    created_at: (r) => r.createdAt.getTime(),
    updated_at: (r) => r.updatedAt.getTime(),
  },
  (r) => ({
    tokenId: String(r.token_id),
    network: r.network as Network,
    state: r.state as RaiseState,
    goalUsd: big(r.goal_usd),
    maxPerWalletUsd: r.max_per_wallet_usd === null || r.max_per_wallet_usd === undefined ? null : big(r.max_per_wallet_usd),
    endsAt: ms(r.ends_at),
    collectedUsd: big(r.collected_usd),
    tokensBought: big(r.tokens_bought),
    remainderTokens: big(r.remainder_tokens),
    tradeId: (r.trade_id as string | null) ?? null,
    failure: (r.failure as Raise['failure']) ?? null,
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);
const RAISE_UPDATED = ['state', 'collected_usd', 'tokens_bought', 'remainder_tokens', 'trade_id', 'failure', 'updated_at'];

// The authorization as JSON, its integers as decimal strings.
const authJson = (a: HeldAuthorizationRecord) =>
  JSON.stringify({ ...a, value: a.value.toString(), validAfter: a.validAfter.toString(), validBefore: a.validBefore.toString() });
const authOf = (text: string): HeldAuthorizationRecord => {
  const a = JSON.parse(text) as Record<string, string>;
  return {
    asset: a.asset as HeldAuthorizationRecord['asset'],
    from: a.from!,
    to: a.to!,
    value: BigInt(a.value!),
    validAfter: BigInt(a.validAfter!),
    validBefore: BigInt(a.validBefore!),
    nonce: a.nonce!,
    signature: a.signature!,
  };
};

const PLEDGES = new Table<Pledge>(
  'pledges',
  {
    pledge_id: (p) => p.pledgeId,
    token_id: (p) => p.tokenId,
    network: (p) => p.network,
    wallet: (p) => p.wallet,
    wallet_lower: writeOnly((p) => p.wallet.toLowerCase()),
    usd_amount: exactInt((p) => p.usdAmount),
    state: (p) => p.state,
    authorization_json: (p) => authJson(p.authorization),
    payment_id: (p) => p.paymentId,
    tokens: exactInt((p) => p.tokens),
    drop_reason: (p) => p.dropReason,
    payout_id: (p) => p.payoutId,
    created_at: (p) => p.createdAt.getTime(),
    updated_at: (p) => p.updatedAt.getTime(),
  },
  (r) => ({
    pledgeId: String(r.pledge_id),
    tokenId: String(r.token_id),
    network: r.network as Network,
    wallet: String(r.wallet),
    usdAmount: big(r.usd_amount),
    state: r.state as PledgeState,
    authorization: authOf(String(r.authorization_json)),
    paymentId: (r.payment_id as string | null) ?? null,
    tokens: big(r.tokens),
    dropReason: (r.drop_reason as string | null) ?? null,
    payoutId: (r.payout_id as string | null) ?? null,
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);
const PLEDGE_UPDATED = ['state', 'tokens', 'drop_reason', 'payout_id', 'updated_at'];

export class MikroOrmRaiseStore implements RaiseStore {
  constructor(private readonly sql: Sql) {}

  async insert(r: Raise): Promise<void> {
    await this.sql.all(`${RAISES.insert} returning token_id`, RAISES.values(r));
  }

  async get(tokenId: string): Promise<Raise | null> {
    const r = await this.sql.one(`select ${RAISES.select(this.sql)} from raises where token_id = ?`, [tokenId]);
    return r ? RAISES.fromRow(r) : null;
  }

  async update(next: Raise, from: RaiseState): Promise<boolean> {
    const rows = await this.sql.all(`${RAISES.update(RAISE_UPDATED)} where token_id = ? and state = ? returning token_id`, [...RAISES.valuesOf(RAISE_UPDATED, next), next.tokenId, from]);
    return rows.length === 1;
  }

  async due(now: Date, limit: number): Promise<Raise[]> {
    const rows = await this.sql.all(
      `select ${RAISES.select(this.sql)} from raises where state = 'COLLECTING' or (state = 'RAISING' and ends_at <= ?) order by ends_at, token_id limit ?`,
      [now.getTime(), limit],
    );
    return rows.map(RAISES.fromRow);
  }

  async countByState(): Promise<Partial<Record<RaiseState, number>>> {
    const rows = await this.sql.all(`select state, count(*) as n from raises group by state`, []);
    return Object.fromEntries(rows.map((r) => [String(r.state), Number(r.n)]));
  }

  async insertPledge(p: Pledge): Promise<void> {
    await this.sql.all(`${PLEDGES.insert} returning pledge_id`, PLEDGES.values(p));
  }

  async getPledge(pledgeId: string): Promise<Pledge | null> {
    const r = await this.sql.one(`select ${PLEDGES.select(this.sql)} from pledges where pledge_id = ?`, [pledgeId]);
    return r ? PLEDGES.fromRow(r) : null;
  }

  async pledgesOf(tokenId: string, wallet?: string): Promise<Pledge[]> {
    const byWallet = wallet === undefined ? '' : ' and wallet_lower = ?';
    const rows = await this.sql.all(`select ${PLEDGES.select(this.sql)} from pledges where token_id = ?${byWallet} order by created_at, pledge_id`, [
      tokenId,
      ...(wallet === undefined ? [] : [wallet.toLowerCase()]),
    ]);
    return rows.map(PLEDGES.fromRow);
  }

  async pledgedBy(wallet: string): Promise<Pledge[]> {
    const rows = await this.sql.all(`select ${PLEDGES.select(this.sql)} from pledges where wallet_lower = ? and state = 'PLEDGED' order by created_at, pledge_id`, [wallet.toLowerCase()]);
    return rows.map(PLEDGES.fromRow);
  }

  async updatePledge(next: Pledge, from: PledgeState): Promise<boolean> {
    const rows = await this.sql.all(`${PLEDGES.update(PLEDGE_UPDATED)} where pledge_id = ? and state = ? returning pledge_id`, [
      ...PLEDGES.valuesOf(PLEDGE_UPDATED, next),
      next.pledgeId,
      from,
    ]);
    return rows.length === 1;
  }
}
