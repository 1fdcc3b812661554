/**
 * The token's own bonding curve (docs/api.md "Curve and prices"): priced exactly, executed under
 * the token's lock, the curve moved in the transaction that books the trade. Buying the curve's
 * last token graduates the token (trading/graduate.ts): its next trades are on its pool.
 */
import { quoteBuyWithUsd, quoteSell, spotPriceUsd } from '../../../domain/curve.js';
import { TokenGraduated, ValidationError } from '../../../domain/errors.js';
import { assertTradable, withCurve } from '../../../domain/token.js';
import type { AppDeps } from '../../deps.js';
import { applyInUnitOfWork } from '../../paid.js';
import { graduate } from '../graduate.js';
import { loadToken, onCallerNetwork, tradedToken } from '../load-token.js';
import { bookBuy, bookSell, buyResult, deliverBought, sellResult } from './booking.js';
import { buySlippage, sellSlippage, venueNameFor, type TradeVenue } from './trade-venue.js';

export function curveVenue(deps: AppDeps): TradeVenue {
  return {
    name: 'curve',

    price: (token, request) => deps.tradeQuoter.price({ ...request, params: token.params, curve: token.curve }),

    async planBuy(token, { grossUsd, minTokensOut = 0n, quoteId }) {
      const q = quoteBuyWithUsd(token.params, token.curve, grossUsd);
      if (q.tokensOut < minTokensOut) throw buySlippage(minTokensOut, q.tokensOut);
      return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId, venue: 'curve' };
    },

    buy: (cmd, paid) =>
      applyInUnitOfWork(deps, paid, async (stores, now) => {
        const token = onCallerNetwork(await loadToken(stores, cmd.plan.tokenId, true), cmd.network);
        assertTradable(token); // graduated since the plan: TOKEN_GRADUATED, the payment is refunded
        const q = quoteBuyWithUsd(token.params, token.curve, cmd.plan.grossUsd);
        if (q.tokensOut < cmd.plan.minTokensOut) throw buySlippage(cmd.plan.minTokensOut, q.tokensOut);
        const moved = withCurve(token, q.after, now);
        const booked = await bookBuy(deps, stores, cmd.buyer, {
          token: moved,
          venue: 'curve',
          grossUsd: q.grossUsd,
          feeUsd: q.feeUsd,
          tokens: q.tokensOut,
          payment: paid?.payment,
          now,
        });
        // The curve sold out: the token changes venue.
        if (moved.state === 'GRADUATED') booked.token = await graduate(deps, stores, booked.token, booked.trade, now);
        const delivery = await deliverBought(deps, stores, cmd.buyer, booked, now);
        return buyResult(booked, delivery, spotPriceUsd(booked.token.curve), paid);
      }),

    async checkSell(token, tokens, minUsdOut) {
      if (tokens > token.curve.tokensSold) throw ValidationError.of('tokens', 'is more than all tokens of this token in circulation');
      const q = quoteSell(token.params, token.curve, tokens);
      if (minUsdOut !== undefined && q.usdOut < minUsdOut) throw sellSlippage(minUsdOut, q.usdOut);
    },

    sell: (_token, cmd, pulled, paid) =>
      applyInUnitOfWork(deps, paid, async (stores, now) => {
        const token = await tradedToken(stores, cmd.tokenId, 'sell', cmd.network, true);
        if (venueNameFor(token, 'sell') !== 'curve') throw new TokenGraduated(token.tokenId); // its pool opened meanwhile
        const q = quoteSell(token.params, token.curve, cmd.tokens);
        if (cmd.minUsdOut !== undefined && q.usdOut < cmd.minUsdOut) throw sellSlippage(cmd.minUsdOut, q.usdOut);
        const booked = await bookSell(deps, stores, cmd.seller, {
          token: withCurve(token, q.after, now),
          venue: 'curve',
          grossUsd: q.grossUsd,
          feeUsd: q.feeUsd,
          tokens: cmd.tokens,
          payment: paid?.payment,
          now,
        });
        return sellResult(booked, spotPriceUsd(booked.token.curve), pulled.pullTx);
      }),
  };
}
