/** token_info (docs/api.md "Paid endpoints"): the token plus its top holders, 24-hour change and hourly candles. */
import { formatRatio } from '../../domain/money.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import { buildCandles, CANDLE_INTERVALS, priceKey, spotKey, type Candle } from './candles.js';
import { holdersOf } from './holders-of.js';
import { loadToken } from '../trading/index.js';
import { DAY_MS, loadTokenView, type TokenView } from '../kit/views.js';

export interface TokenInfo extends TokenView {
  holdersTop: { wallet: string; balance: string; share: string; locked: string }[];
  priceChange24h: string;
  candles1h: Candle[];
}

/** token_info: the token plus its top holders, 24-hour change and hourly candles. */
export function tokenInfo(deps: Pick<AppDeps, 'uow' | 'clock'>, tokenId: string): Promise<TokenInfo> {
  return deps.uow.run((stores) => tokenInfoFrom(stores, tokenId, deps.clock.now()));
}

export async function tokenInfoFrom(stores: Stores, tokenId: string, now: Date): Promise<TokenInfo> {
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const token = await loadToken(stores, tokenId);
  const [view, top, lastBefore, dayTrades] = await Promise.all([
    loadTokenView(stores, token, now),
    holdersOf(stores, token, 10),
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
