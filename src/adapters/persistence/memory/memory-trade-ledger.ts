import { ALL_NETWORKS } from '../../../domain/network.js';
import type { Trade } from '../../../domain/trade.js';
import type { Page, PageRequest } from '../../../ports/page.js';
import type { NetworkStats, TokenActivity, TradeLedger } from '../../../ports/trade-ledger.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryTradeLedger implements TradeLedger {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async record(trade: Trade): Promise<void> {
    this.db.push(this.tx, this.db.trades, trade);
  }

  async listByToken(tokenId: string, page: PageRequest): Promise<Page<Trade>> {
    // Trade ids are ULIDs: their order is the order of execution.
    const after = page.cursor ? decodeCursor(page.cursor, ['id'] as const).id : null;
    const rows = this.db.trades
      .filter((t) => t.tokenId === tokenId && (after === null || t.tradeId < after))
      .sort((a, b) => (a.tradeId < b.tradeId ? 1 : -1));
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > page.limit && last ? encodeCursor({ id: last.tradeId }) : null };
  }

  async between(tokenId: string, from: Date, to: Date): Promise<Trade[]> {
    return this.db.trades
      .filter((t) => t.tokenId === tokenId && t.createdAt >= from && t.createdAt < to)
      .sort((a, b) => (a.tradeId < b.tradeId ? -1 : 1));
  }

  async activitySince(tokenId: string, since: Date): Promise<TokenActivity> {
    let volumeUsd = 0n;
    let trades = 0;
    for (const t of this.db.trades) {
      if (t.tokenId === tokenId && t.createdAt >= since) {
        volumeUsd += t.usdAmount;
        trades += 1;
      }
    }
    return { volumeUsd, trades };
  }

  async lastBefore(tokenId: string, before: Date): Promise<Trade | null> {
    let best: Trade | null = null;
    for (const t of this.db.trades) {
      if (t.tokenId === tokenId && t.createdAt < before && (!best || t.tradeId > best.tradeId)) best = t;
    }
    return best;
  }

  async stats(): Promise<NetworkStats[]> {
    return ALL_NETWORKS.map((network) => {
      const trades = this.db.trades.filter((t) => t.network === network);
      return {
        network,
        tokens: [...this.db.tokens.values()].filter((t) => t.network === network).length,
        trades: trades.length,
        volumeUsd: trades.reduce((s, t) => s + t.usdAmount, 0n),
        feesUsd: trades.reduce((s, t) => s + t.feeUsd, 0n),
      };
    });
  }
}
