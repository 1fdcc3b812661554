/**
 * A graduated token's Uniswap v2 pool (docs/api.md "Graduation"): priced on the pool's reserves
 * now; executed by custody's swap (custody/pool-swap.ts, exactly once per payment) with the
 * trade's bound as amountOutMin, then booked from what the swap really moved. Our fee is taken
 * on the USD side: off the USD swapped in on a buy, off the USD swapped out on a sell.
 */
import { averagePriceUsd, spotPriceUsd } from '../../../domain/curve.js';
import { isRefusal, ServiceUnavailable, TokenGraduated, type DomainError } from '../../../domain/errors.js';
import { feeOn } from '../../../domain/fees.js';
import { formatTokens, formatUsd } from '../../../domain/money.js';
import { minOut } from '../../../domain/pool.js';
import { feeBpsOf, pricingParams, type Token } from '../../../domain/token.js';
import type { TradeQuoter } from '../../../ports/trade-quoter.js';
import { dexOf, refuseSwap, swapOnPool } from '../../custody/index.js';
import type { AppDeps } from '../../kit/deps.js';
import { applyInUnitOfWork, fundingKey, InterruptedInCustody, type Funding } from '../../kit/paid.js';
import { loadToken, tradedToken } from '../load-token.js';
import { bookBuy, bookSell, buyResult, deliverBought, sellResult } from './booking.js';
import { buySlippage, sellSlippage, type BuyCommand, type BuyResult, type TradeVenue } from './trade-venue.js';

/** Smallest gross USD whose proceeds after our fee reach `usdOut`. */
function grossFor(usdOut: bigint, feeBps: bigint): bigint {
  let gross = (usdOut * 10_000n + (10_000n - feeBps) - 1n) / (10_000n - feeBps);
  while (gross - feeOn(gross, feeBps) < usdOut) gross += 1n;
  return gross;
}

/** Prices on the token's pool now, with the fee in force. */
function poolPrice(deps: Pick<AppDeps, 'clock' | 'poolQuoter'>): TradeVenue['price'] {
  const quoter = (token: Token): TradeQuoter => {
    if (!token.address || !deps.poolQuoter) throw new TokenGraduated(token.tokenId); // no pool to price on here
    return deps.poolQuoter;
  };
  return (token, request) =>
    quoter(token).price({ ...request, params: pricingParams(token, deps.clock.now()), curve: token.curve, token: { network: token.network, address: token.address! } });
}

/**
 * A sell swap's amountOutMin: from the caller's minUsdOut (grossed up by our fee), or the pool's
 * output now less the default slippage.
 */
async function sellBound(deps: Pick<AppDeps, 'settings'>, price: TradeVenue['price'], token: Token, cmd: { tokens: bigint; minUsdOut?: bigint | undefined }, feeBps: bigint): Promise<bigint> {
  if (cmd.minUsdOut !== undefined) return grossFor(cmd.minUsdOut, feeBps);
  const q = await price(token, { side: 'sell', tokens: cmd.tokens });
  return minOut(q.usdAmount + q.feeUsd, deps.settings.defaultSlippageBps);
}

/** The pool's price after the trade (the curve's last one when the pool cannot be read). */
async function spotAfter(deps: Pick<AppDeps, 'dex'>, token: Token): Promise<(locked: Token) => string> {
  const pool = await dexOf(deps).reserves(token.network, token.address!).catch(() => null);
  return (locked: Token) => (pool ? averagePriceUsd(pool.usd, pool.tokens) : spotPriceUsd(locked.curve));
}

/**
 * A paid buy refused (or met by an outage) before its swap moved anything is refunded — but
 * only once no copy of it can swap after: its refusal is recorded in the swap's place
 * (decision 0059). Where a swap is recorded instead, it decides: reverted, the refusal stands
 * (nothing moved); otherwise the buy is finished later (202), never refunded while that swap
 * can move the USDC. A refusal that cannot be recorded (the database is down) waits likewise.
 */
async function fencedRefusal(deps: Pick<AppDeps, 'uow' | 'clock' | 'dex'>, cmd: BuyCommand, key: string, refusal: DomainError): Promise<Error> {
  const stands = await refuseSwap(deps, key, cmd.network, cmd.plan.tokenId, refusal).catch(() => undefined);
  if (stands instanceof Error) return stands; // the refusal that stands: this one, or another copy's recorded first
  if (stands && (await dexOf(deps).status(cmd.network, stands.txHash, stands.rawTx).catch(() => null)) === 'reverted') return refusal;
  return new InterruptedInCustody(key, refusal);
}

/** Custody's swap of the buy's USDC (less our fee) on the pool, then the booking; `swapped` is told once the swap is mined. */
async function buyOnPool(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>, cmd: BuyCommand, paid: Funding<BuyResult> | undefined, key: string, swapped: () => void): Promise<BuyResult> {
  const token = await deps.uow.run((s) => tradedToken(s, cmd.plan.tokenId, 'buy', cmd.network));
  const { grossUsd: planned } = cmd.plan;
  const fee = feeOn(planned, feeBpsOf(token, deps.clock.now())); // the fee in force, never more than priced
  const swap = await swapOnPool(deps, key, token, { side: 'buy', amountIn: planned - fee, amountOutMin: cmd.plan.minTokensOut, grossUsd: planned, describe: formatTokens });
  swapped();
  // Booked as the swap custody recorded was signed (decision 0061): its gross, and as our fee
  // what it left of it — the fee when it was signed, also for a copy of the buy (the
  // reconciler's) that comes after the fee decayed. From what custody signed, not from the
  // pair's Swap event, whose amountIn counts whatever else sat unsynced in the pair. A swap
  // recorded before its terms were kept is booked at the plan's gross and the fee now.
  const { grossUsd, amountIn } = swap.buy ?? { grossUsd: planned, amountIn: planned - fee };
  const feeUsd = grossUsd - amountIn;
  const spotOf = await spotAfter(deps, token);
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const locked = await loadToken(stores, token.tokenId, true);
    const booked = await bookBuy(deps, stores, cmd.buyer, {
      referrer: cmd.referrer,
      token: locked,
      venue: 'uniswap-v2',
      grossUsd,
      feeUsd,
      tokens: swap.amountOut,
      payment: paid?.payment,
      now,
    });
    const delivery = await deliverBought(deps, stores, cmd.buyer, booked, now);
    return buyResult(booked, delivery, spotOf(locked), paid);
  });
}

/** The pulled tokens are swapped for USDC, bounded by sellBound, then the sale is booked. */
async function sellOnPool(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>, price: TradeVenue['price'], ...[token, cmd, pulled, paid]: Parameters<TradeVenue['sell']>): ReturnType<TradeVenue['sell']> {
  dexOf(deps); // no router on this deployment: SERVICE_UNAVAILABLE before the pool is priced
  const feeBps = feeBpsOf(token, deps.clock.now());
  const bound = await sellBound(deps, price, token, cmd, feeBps);
  const swap = await swapOnPool(deps, pulled.key, token, { side: 'sell', amountIn: cmd.tokens, amountOutMin: bound, describe: formatUsd });
  const grossUsd = swap.amountOut;
  const spotOf = await spotAfter(deps, token);
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const locked = await loadToken(stores, token.tokenId, true);
    const booked = await bookSell(deps, stores, cmd.seller, {
      referrer: cmd.referrer,
      token: locked,
      venue: 'uniswap-v2',
      grossUsd,
      feeUsd: feeOn(grossUsd, feeBps),
      tokens: cmd.tokens,
      payment: paid?.payment,
      now,
    });
    return sellResult(booked, spotOf(locked), pulled.pullTx);
  });
}

export function poolVenue(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'poolQuoter' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>): TradeVenue {
  const price = poolPrice(deps);
  return {
    name: 'uniswap-v2',
    price,

    async planBuy(token, { grossUsd, minTokensOut, quoteId }, phase) {
      const plan = (bound: bigint) => ({ tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut: bound, quoteId, venue: 'uniswap-v2' as const });
      // Applying a settled payment: its swap may be recorded or mined already, and enforces the bound itself.
      if (phase === 'apply' && minTokensOut !== undefined) return plan(minTokensOut);
      const priced = await price(token, { side: 'buy', usdAmount: grossUsd });
      const bound = minTokensOut ?? minOut(priced.tokens, deps.settings.defaultSlippageBps);
      if (priced.tokens < bound) throw buySlippage(bound, priced.tokens);
      return plan(bound);
    },

    async buy(cmd, paid) {
      const key = fundingKey(paid) ?? deps.ids.next('pay');
      let swapped = false;
      try {
        return await buyOnPool(deps, cmd, paid, key, () => (swapped = true));
      } catch (e) {
        if ((!paid?.payment && paid?.key === undefined) || !isRefusal(e)) throw e;
        // The swap moved the USDC: an outage now is no refusal — the buy is booked later (202).
        if (swapped) throw e instanceof ServiceUnavailable ? new InterruptedInCustody(key, e) : e;
        throw await fencedRefusal(deps, cmd, key, e);
      }
    },

    async checkSell(token, tokens, minUsdOut) {
      // Priced on the pool now; the swap itself enforces the bound again when mined.
      const q = await price(token, { side: 'sell', tokens });
      if (minUsdOut !== undefined && q.usdAmount < minUsdOut) throw sellSlippage(minUsdOut, q.usdAmount);
    },

    /** The pulled tokens are swapped for USDC, bounded by sellBound. */
    sell: (token, cmd, pulled, paid) => sellOnPool(deps, price, token, cmd, pulled, paid),
  };
}
