/** GET /api/tokens/:id/candles: OHLCV over a window of whole intervals. */
import { ValidationError } from '../../domain/errors.js';
import type { AppDeps } from '../kit/deps.js';
import { buildCandles, CANDLE_INTERVALS, type CandleInterval } from './candles.js';
import { loadToken } from '../trading/index.js';

const MAX_CANDLES = 1_000;

export function getCandles(deps: Pick<AppDeps, 'uow' | 'clock'>, tokenId: string, q: { interval: CandleInterval; from?: Date; to?: Date }) {
  const now = deps.clock.now();
  const intervalMs = CANDLE_INTERVALS[q.interval];
  // The default window ends just after now, so a trade made this millisecond is included.
  const to = q.to ?? new Date(now.getTime() + 1);
  const from = q.from ?? new Date(to.getTime() - intervalMs * 100);
  if (from >= to) throw ValidationError.of('from', 'must be before to');
  if ((to.getTime() - from.getTime()) / intervalMs > MAX_CANDLES) {
    throw ValidationError.of('from', `the range may span at most ${MAX_CANDLES} intervals`);
  }
  return deps.uow.run(async (stores) => {
    await loadToken(stores, tokenId);
    const trades = await stores.trades.between(tokenId, from, to);
    return { tokenId, interval: q.interval, from: from.toISOString(), to: to.toISOString(), items: buildCandles(trades, intervalMs) };
  });
}
