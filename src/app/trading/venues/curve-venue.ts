/**
 * The token's own bonding curve (docs/api.md "Curve and prices"): priced exactly, executed under
 * the token's lock, the curve moved in the transaction that books the trade. Buying the curve's
 * last token graduates the token (trading/graduate.ts): its next trades are on its pool.
 */
import { quoteBuyWithUsd, quoteSell, spotPriceUsd } from '../../../domain/curve.js';
import { TokenGraduated, ValidationError } from '../../../domain/errors.js';
import type { Delivery } from '../../../domain/delivery.js';
import type { Payment } from '../../../domain/payment.js';
import { assertTradable, pricingParams, withCurve, type Token } from '../../../domain/token.js';
import type { Stores } from '../../../ports/unit-of-work.js';
import type { AppDeps } from '../../kit/deps.js';
import { applyInUnitOfWork } from '../../kit/paid.js';
import { graduate } from '../graduate.js';
import { loadToken, onCallerNetwork, tradedToken } from '../load-token.js';
import { bookBuy, bookSell, buyResult, deliverBought, sellResult, type Booked } from './booking.js';
import { buySlippage, sellSlippage, venueNameFor, type TradeVenue } from './trade-venue.js';

/** What a buy on the curve is told: who buys, for how much, at least how many tokens. */
interface CurveBuy {
  buyer: string;
  grossUsd: bigint;
  minTokensOut: bigint;
  referrer?: string | null | undefined;
  payment: Payment | undefined;
  now: Date;
  /** The fee charged: the one in force (a launch fee while it decays); the token's base fee when omitted. */
  feeBps?: bigint;
}

/**
 * A buy on `token`'s curve inside the caller's unit of work: the curve moved, the trade booked,
 * the tokens queued for delivery; buying the last curve token graduates the token. The curve
 * venue's buys and a creator's dev buy at launch both go through here.
 */
export async function buyOnCurve(deps: Pick<AppDeps, 'ids' | 'settings'>, stores: Stores, token: Token, buy: CurveBuy): Promise<{ booked: Booked; delivery: Delivery }> {
  const booked = await bookCurveBuy(deps, stores, token, buy);
  return { booked, delivery: await deliverBought(deps, stores, buy.buyer, booked, buy.now) };
}

/** The same buy with its tokens left in custody (a vested dev buy: released on its schedule, not delivered now). */
export async function bookCurveBuy(deps: Pick<AppDeps, 'ids' | 'settings'>, stores: Stores, token: Token, buy: CurveBuy): Promise<Booked> {
  const { now } = buy;
  const q = quoteBuyWithUsd(buy.feeBps === undefined ? token.params : { ...token.params, feeBps: buy.feeBps }, token.curve, buy.grossUsd);
  if (q.tokensOut < buy.minTokensOut) throw buySlippage(buy.minTokensOut, q.tokensOut);
  const moved = withCurve(token, q.after, now);
  const booked = await bookBuy(deps, stores, buy.buyer, {
    referrer: buy.referrer,
    token: moved,
    venue: 'curve',
    grossUsd: q.grossUsd,
    feeUsd: q.feeUsd,
    tokens: q.tokensOut,
    payment: buy.payment,
    now,
  });
  // The curve sold out: the token changes venue.
  if (moved.state === 'GRADUATED') booked.token = await graduate(deps, stores, booked.token, booked.trade, now);
  return booked;
}

export function curveVenue(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tradeQuoter' | 'settings'>): TradeVenue {
  return {
    name: 'curve',

    // Every price and every trade at the fee in force when it is made: a launch fee only falls, so a
    // trade is never charged more than it was priced at.
    price: (token, request) => deps.tradeQuoter.price({ ...request, params: pricingParams(token, deps.clock.now()), curve: token.curve }),

    async planBuy(token, { grossUsd, minTokensOut = 0n, quoteId }) {
      const q = quoteBuyWithUsd(pricingParams(token, deps.clock.now()), token.curve, grossUsd);
      if (q.tokensOut < minTokensOut) throw buySlippage(minTokensOut, q.tokensOut);
      return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId, venue: 'curve' };
    },

    buy: (cmd, paid) =>
      applyInUnitOfWork(deps, paid, async (stores, now) => {
        const token = onCallerNetwork(await loadToken(stores, cmd.plan.tokenId, true, cmd.buyer), cmd.network);
        assertTradable(token); // graduated since the plan: TOKEN_GRADUATED, the payment is refunded
        const feeBps = pricingParams(token, now).feeBps;
        const { booked, delivery } = await buyOnCurve(deps, stores, token, { ...cmd.plan, buyer: cmd.buyer, referrer: cmd.referrer, payment: paid?.payment, now, feeBps });
        return buyResult(booked, delivery, spotPriceUsd(booked.token.curve), paid);
      }),

    async checkSell(token, tokens, minUsdOut) {
      if (tokens > token.curve.tokensSold) throw ValidationError.of('tokens', 'is more than all tokens of this token in circulation');
      const q = quoteSell(pricingParams(token, deps.clock.now()), token.curve, tokens);
      if (minUsdOut !== undefined && q.usdOut < minUsdOut) throw sellSlippage(minUsdOut, q.usdOut);
    },

    sell: (_token, cmd, pulled, paid) =>
      applyInUnitOfWork(deps, paid, async (stores, now) => {
        const token = await tradedToken(stores, cmd.tokenId, 'sell', cmd.network, true, cmd.seller);
        if (venueNameFor(token, 'sell') !== 'curve') throw new TokenGraduated(token.tokenId); // its pool opened meanwhile
        const q = quoteSell(pricingParams(token, now), token.curve, cmd.tokens);
        if (cmd.minUsdOut !== undefined && q.usdOut < cmd.minUsdOut) throw sellSlippage(cmd.minUsdOut, q.usdOut);
        const booked = await bookSell(deps, stores, cmd.seller, {
          referrer: cmd.referrer,
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
