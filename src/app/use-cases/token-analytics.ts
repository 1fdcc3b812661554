/**
 * Read-only analytics of SPEC §5 (token_info) and §7 (/api/tokens/:id/…, /api/stats).
 */

import { ValidationError } from '../../domain/errors.js';
import { formatRatio, formatTokens, formatUsd, TOKEN_UNIT, USDC_UNIT } from '../../domain/money.js';
import type { Trade } from '../../domain/trade.js';
import type { PageRequest } from '../../ports/page.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../deps.js';
import { DAY_MS, loadTokenView, tradeView, type TokenView } from '../views.js';
import { loadToken } from './load-token.js';

export const CANDLE_INTERVALS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': DAY_MS } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;
const MAX_CANDLES = 1_000;

export interface Candle {
  openTime: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volumeUsd: string;
  trades: number;
}

/** Execution price of a trade as a bigint ratio key (USD units per token unit, scaled by 1e18). */
function priceKey(t: Trade): bigint {
  return (t.usdAmount * TOKEN_UNIT * 10n ** 18n) / (t.tokenAmount * USDC_UNIT);
}
const formatPriceKey = (k: bigint) => formatRatio(k, 10n ** 18n, 18);

/** OHLCV buckets aligned to whole intervals since the epoch (UTC); empty buckets are omitted. */
export function buildCandles(trades: Trade[], intervalMs: number): Candle[] {
  const buckets = new Map<number, Trade[]>();
  for (const t of trades) {
    const start = Math.floor(t.createdAt.getTime() / intervalMs) * intervalMs;
    const list = buckets.get(start) ?? [];
    list.push(t);
    buckets.set(start, list);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, list]) => {
      const prices = list.map(priceKey);
      return {
        openTime: new Date(start).toISOString(),
        open: formatPriceKey(prices[0]!),
        high: formatPriceKey(prices.reduce((a, b) => (b > a ? b : a))),
        low: formatPriceKey(prices.reduce((a, b) => (b < a ? b : a))),
        close: formatPriceKey(prices[prices.length - 1]!),
        volumeUsd: formatUsd(list.reduce((s, t) => s + t.usdAmount, 0n)),
        trades: list.length,
      };
    });
}

export function candles(deps: AppDeps, tokenId: string, q: { interval: CandleInterval; from?: Date; to?: Date }) {
  const now = deps.clock.now();
  const intervalMs = CANDLE_INTERVALS[q.interval];
  // The default window ends just after now, so a trade made this millisecond is included.
  const to = q.to ?? new Date(now.getTime() + 1);
  const from = q.from ?? new Date(to.getTime() - intervalMs * 100);
  if (from >= to) throw ValidationError.of('from', 'must be before to');
  if ((to.getTime() - from.getTime()) / intervalMs > MAX_CANDLES) {
    throw ValidationError.of('from', `the range may span at most ${MAX_CANDLES} intervals`);
  }
  return deps.uow.read(async (stores) => {
    await loadToken(stores, tokenId);
    const trades = await stores.trades.between(tokenId, from, to);
    return { tokenId, interval: q.interval, from: from.toISOString(), to: to.toISOString(), items: buildCandles(trades, intervalMs) };
  });
}

async function holdersOf(stores: Stores, tokenId: string, limit: number, tokensSold: bigint) {
  return (await stores.positions.holders(tokenId, limit)).map((p) => ({
    wallet: p.wallet,
    balance: formatTokens(p.balance),
    share: tokensSold > 0n ? formatRatio(p.balance, tokensSold, 6) : '0',
  }));
}

export function holders(deps: AppDeps, tokenId: string, limit: number) {
  return deps.uow.read(async (stores) => {
    const token = await loadToken(stores, tokenId);
    return { tokenId, items: await holdersOf(stores, tokenId, limit, token.curve.tokensSold) };
  });
}

export function listTrades(deps: AppDeps, tokenId: string, page: PageRequest) {
  return deps.uow.read(async (stores) => {
    await loadToken(stores, tokenId);
    const result = await stores.trades.listByToken(tokenId, page);
    return { items: result.items.map(tradeView), nextCursor: result.nextCursor };
  });
}

export interface TokenInfo extends TokenView {
  holdersTop: { wallet: string; balance: string; share: string }[];
  priceChange24h: string;
  candles1h: Candle[];
}

/** token_info: the token plus its top holders, 24-hour change and hourly candles. */
export function tokenInfo(deps: AppDeps, tokenId: string): Promise<TokenInfo> {
  return deps.uow.read((stores) => tokenInfoFrom(stores, tokenId, deps.clock.now()));
}

export async function tokenInfoFrom(stores: Stores, tokenId: string, now: Date): Promise<TokenInfo> {
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const token = await loadToken(stores, tokenId);
  const [view, top, lastBefore, dayTrades] = await Promise.all([
    loadTokenView(stores, token, now),
    holdersOf(stores, tokenId, 10, token.curve.tokensSold),
    stores.trades.lastBefore(tokenId, dayAgo),
    stores.trades.between(tokenId, dayAgo, new Date(now.getTime() + 1)),
  ]);
  // The price a day ago: that of the last trade before then, or the launch price.
  const startPrice = lastBefore
    ? priceKey(lastBefore)
    : spotKey(token.params.initialVirtualUsd, token.params.initialVirtualTokens);
  const spot = spotKey(token.curve.virtualUsd, token.curve.virtualTokens);
  return {
    ...view,
    holdersTop: top,
    priceChange24h: formatRatio(spot - startPrice, startPrice, 6),
    candles1h: buildCandles(dayTrades, CANDLE_INTERVALS['1h']),
  };
}

function spotKey(x: bigint, y: bigint): bigint {
  return (x * TOKEN_UNIT * 10n ** 18n) / (y * USDC_UNIT);
}

export function stats(deps: AppDeps) {
  return deps.uow.read(async (stores) => ({
    networks: (await stores.trades.stats()).map((s) => ({
      network: s.network,
      tokens: s.tokens,
      trades: s.trades,
      volumeUsd: formatUsd(s.volumeUsd),
      feesUsd: formatUsd(s.feesUsd),
    })),
  }));
}
