/** OHLCV candles and execution-price keys built from trades (docs/api.md "Free endpoints"), shared by the read use cases. */
import { formatRatio, formatUsd, TOKEN_UNIT, USDC_UNIT } from '../../domain/money.js';
import { venueUsd, type Trade } from '../../domain/trade.js';
import { DAY_MS } from '../kit/views.js';

export const CANDLE_INTERVALS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': DAY_MS } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export interface Candle {
  openTime: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volumeUsd: string;
  trades: number;
}

/**
 * Execution price of a trade without the fee, as a bigint ratio key (USD units per token unit,
 * scaled by 1e18): a buy under a 50% launch fee is plotted at the curve's price, not at twice it.
 */
export function priceKey(t: Trade): bigint {
  return (venueUsd(t) * TOKEN_UNIT * 10n ** 18n) / (t.tokenAmount * USDC_UNIT);
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

/** Spot price of reserves (x USD units, y token units) as a price key. */
export function spotKey(x: bigint, y: bigint): bigint {
  return (x * TOKEN_UNIT * 10n ** 18n) / (y * USDC_UNIT);
}
