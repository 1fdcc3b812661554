import { ALL_NETWORKS, type Network } from '../../../domain/network.js';
import type { Trade } from '../../../domain/trade.js';
import type { Page, PageRequest } from '../../../ports/page.js';
import type { NetworkStats, TokenActivity, TradeLedger } from '../../../ports/trade-ledger.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import { big } from './exact-bigint-type.js';
import { ms, type Sql } from './sql.js';
import { exactInt, Table } from './table.js';

const TRADES = new Table<Trade>(
  'trades',
  {
    trade_id: (t) => t.tradeId,
    network: (t) => t.network,
    token_id: (t) => t.tokenId,
    wallet: (t) => t.wallet,
    side: (t) => t.side,
    usd_amount: exactInt((t) => t.usdAmount),
    fee_usd: exactInt((t) => t.feeUsd),
    token_amount: exactInt((t) => t.tokenAmount),
    payment_id: (t) => t.paymentId,
    settlement_tx: (t) => t.settlementTx,
    created_at: (t) => t.createdAt.getTime(),
    venue: (t) => t.venue,
  },
  (r) => ({
    tradeId: String(r.trade_id),
    network: r.network as Network,
    tokenId: String(r.token_id),
    wallet: String(r.wallet),
    side: r.side as Trade['side'],
    usdAmount: big(r.usd_amount),
    feeUsd: big(r.fee_usd),
    tokenAmount: big(r.token_amount),
    paymentId: (r.payment_id as string | null) ?? null,
    settlementTx: (r.settlement_tx as string | null) ?? null,
    venue: ((r.venue as string | null) ?? 'curve') as Trade['venue'],
    createdAt: ms(r.created_at),
  }),
);

export class MikroOrmTradeLedger implements TradeLedger {
  constructor(private readonly sql: Sql) {}

  async record(t: Trade): Promise<void> {
    await this.sql.write(TRADES.insert, TRADES.values(t));
  }

  async listByToken(tokenId: string, page: PageRequest): Promise<Page<Trade>> {
    const after = page.cursor ? decodeCursor(page.cursor, ['id'] as const).id : null;
    const rows = await this.sql.all(
      `select ${TRADES.select(this.sql)} from trades where token_id = ? ${after ? 'and trade_id < ?' : ''} order by trade_id desc limit ?`,
      after ? [tokenId, after, page.limit + 1] : [tokenId, page.limit + 1],
    );
    const items = rows.slice(0, page.limit).map(TRADES.fromRow);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > page.limit && last ? encodeCursor({ id: last.tradeId }) : null };
  }

  async between(tokenId: string, from: Date, to: Date): Promise<Trade[]> {
    const rows = await this.sql.all(
      `select ${TRADES.select(this.sql)} from trades where token_id = ? and created_at >= ? and created_at < ? order by trade_id`,
      [tokenId, from.getTime(), to.getTime()],
    );
    return rows.map(TRADES.fromRow);
  }

  async activitySince(tokenId: string, since: Date): Promise<TokenActivity> {
    const r = await this.sql.one(
      `select cast(coalesce(${this.sql.sum('usd_amount')}, 0) as text) as vol, count(*) as n from trades where token_id = ? and created_at >= ?`,
      [tokenId, since.getTime()],
    );
    return { volumeUsd: BigInt(String(r?.vol ?? '0')), trades: Number(r?.n ?? 0) };
  }

  async lastBefore(tokenId: string, before: Date): Promise<Trade | null> {
    const r = await this.sql.one(`select ${TRADES.select(this.sql)} from trades where token_id = ? and created_at < ? order by trade_id desc limit 1`, [
      tokenId,
      before.getTime(),
    ]);
    return r ? TRADES.fromRow(r) : null;
  }

  async stats(): Promise<NetworkStats[]> {
    const trades = await this.sql.all(
      `select network, count(*) as n, cast(coalesce(${this.sql.sum('usd_amount')}, 0) as text) as vol,
        cast(coalesce(${this.sql.sum('fee_usd')}, 0) as text) as fees from trades group by network`,
    );
    const tokens = await this.sql.all(`select network, count(*) as n from tokens group by network`);
    return ALL_NETWORKS.map((network) => {
      const t = trades.find((r) => r.network === network);
      return {
        network,
        tokens: Number(tokens.find((r) => r.network === network)?.n ?? 0),
        trades: Number(t?.n ?? 0),
        volumeUsd: BigInt(String(t?.vol ?? '0')),
        feesUsd: BigInt(String(t?.fees ?? '0')),
      };
    });
  }
}
