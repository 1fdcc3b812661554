import type { Network } from '../domain/network.js';
import type { Trade } from '../domain/trade.js';
import type { Page, PageRequest } from './page.js';

export interface TokenActivity {
  volumeUsd: bigint;
  trades: number;
}

export interface NetworkStats {
  network: Network;
  tokens: number;
  trades: number;
  volumeUsd: bigint;
  feesUsd: bigint;
}

/** The append-only record of executed trades. */
export interface TradeLedger {
  record(trade: Trade): Promise<void>;
  /** Newest first. */
  listByToken(tokenId: string, page: PageRequest): Promise<Page<Trade>>;
  /** Oldest first, trades with from ≤ createdAt < to. */
  between(tokenId: string, from: Date, to: Date): Promise<Trade[]>;
  activitySince(tokenId: string, since: Date): Promise<TokenActivity>;
  /** The last trade strictly before `before`, if any (for price change and candle opens). */
  lastBefore(tokenId: string, before: Date): Promise<Trade | null>;
  stats(): Promise<NetworkStats[]>;
}
