/**
 * GET /api/prices (docs/pricing.md): each asset's USD price per network, the sources asked, their
 * answers and ages, and each source's limit and breaker state. A price no source can give is
 * reported as such (with the error a paid request would get), not as a failed request.
 */
import { DomainError } from '../../domain/errors.js';
import { ALL_NETWORKS } from '../../domain/network.js';
import { compareUsdPrices, formatUsdPrice, PRICED_ASSETS } from '../../domain/usd-price.js';
import type { Clock } from '../../ports/clock.js';
import { QuoteFailure } from '../../ports/quote-provider.js';
import type { PriceBoard } from '../pricing/index.js';
import type { Settings } from '../kit/settings.js';
import { ageSeconds, providerAnswerView, providerStateView } from '../kit/views.js';

export async function getPrices(deps: { priceBoard: PriceBoard; clock: Clock; settings: Settings }) {
  const board = deps.priceBoard;
  const pairs = ALL_NETWORKS.flatMap((network) => PRICED_ASSETS.filter((a) => board.supports(a, network)).map((asset) => ({ asset, network })));
  const prices = await Promise.all(
    pairs.map(async ({ asset, network }) => {
      let quote;
      let error: { code: string; message: string } | null = null;
      try {
        quote = await board.usdPrice(asset, network);
      } catch (e) {
        if (e instanceof DomainError) error = { code: e.code, message: e.message };
        else if (e instanceof QuoteFailure) error = { code: 'SERVICE_UNAVAILABLE', message: e.message };
        else throw e;
      }
      const now = deps.clock.now();
      return {
        asset,
        network,
        usdPrice: quote ? formatUsdPrice(quote.price) : null,
        provider: quote?.provider ?? null,
        observedAt: quote?.observedAt.toISOString() ?? null,
        ageSeconds: quote ? ageSeconds(quote.observedAt, now) : null,
        ...(asset === 'USDC' ? { belowDepegFloor: quote ? compareUsdPrices(quote.price, deps.settings.usdcDepegFloor) < 0 : null } : {}),
        error,
        answers: (board.lastRound(asset, network)?.answers ?? []).map((a) => providerAnswerView(a, now)),
      };
    }),
  );
  return {
    prices,
    providers: (await board.providerStates()).map(providerStateView),
    policy: {
      rule: 'median of fresh answers within maxSpreadBps of the median',
      maxSpreadBps: Number(board.maxSpreadBps),
      cacheSeconds: board.cacheMs / 1000,
      usdcDepegFloor: formatUsdPrice(deps.settings.usdcDepegFloor),
    },
  };
}
