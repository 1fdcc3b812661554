/**
 * Buying on the curve, in the three variants of SPEC §5. Each variant is first turned into a
 * plan — the exact gross USD to charge and the least tokens to accept — before any payment is
 * asked for; executing the plan re-checks everything under the token's lock.
 */
import { quoteBuyForTokens, quoteBuyWithUsd, spotPriceUsd, averagePriceUsd } from '../../domain/curve.js';
import {
  QuoteExpired,
  QuoteNotFound,
  SlippageExceeded,
  ValidationError,
} from '../../domain/errors.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import { feeOn } from '../../domain/fees.js';
import { minOut } from '../../domain/pool.js';
import type { TradeVenue } from '../../domain/trade.js';
import { TokenGraduated, TokenNetworkMismatch } from '../../domain/errors.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { Network } from '../../domain/network.js';
import { newDelivery } from '../../domain/delivery.js';
import { applyBuy, emptyPosition } from '../../domain/position.js';
import type { Quote } from '../../domain/quote.js';
import type { Token } from '../../domain/token.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { deliveryView, positionView, tradeView, type DeliveryView, type PositionView, type TradeView } from '../views.js';
import { loadToken, loadTradableToken, venueOf } from '../trading/load-token.js';
import { dexOf, swapOnPool } from '../trading/pool-swap.js';
import { recordTrade } from '../trading/record-trade.js';

export type BuyRequest =
  | { kind: 'usd'; tokenId: string; usdAmount: bigint; minTokensOut?: bigint | undefined }
  | { kind: 'tokens'; tokenId: string; tokens: bigint; maxUsd?: bigint | undefined }
  | { kind: 'quote'; quoteId: string };

export interface BuyPlan {
  tokenId: string;
  network: Network;
  /** The price: exactly what the payment must carry. */
  grossUsd: bigint;
  minTokensOut: bigint;
  quoteId: string | null;
  /** The curve (the default), or the token's Uniswap v2 pool once it graduated (SPEC §14). */
  venue?: TradeVenue;
}

export interface BuyResult {
  tokenId: string;
  tokensReceived: string;
  usdSpent: string;
  feeUsd: string;
  priceUsd: string;
  spotPriceUsd: string;
  position: PositionView;
  trade: TradeView;
  delivery: DeliveryView;
  payment: { paymentId: string; network: string; payer: string; transaction: string | null } | null;
}

const holdKey = (tokenId: string, tokens: bigint) => `buy_tokens:${tokenId}:${tokens}`;

/**
 * A buy's gross USD must lie within the configured bounds. The bounds are dollars, so the
 * message speaks dollars even when the caller asked for tokens, and names what they cost.
 */
export function checkBuySize(deps: AppDeps, usd: bigint, asked: { usdAmount: bigint } | { tokens: bigint }): void {
  const { minBuyUsd, maxBuyUsd } = deps.settings;
  if (usd >= minBuyUsd && usd <= maxBuyUsd) return;
  const below = usd < minBuyUsd;
  const limit = `the $${formatUsd(below ? minBuyUsd : maxBuyUsd)} ${below ? 'minimum' : 'maximum'} buy`;
  const side = below ? 'below' : 'above';
  const [path, message] =
    'tokens' in asked
      ? ['tokens', `${formatTokens(asked.tokens)} tokens cost $${formatUsd(usd)}, ${side} ${limit}`]
      : ['usdAmount', `$${formatUsd(usd)} is ${side} ${limit}`];
  throw new ValidationError([{ path, message }], message, {
    costUsd: formatUsd(usd),
    minUsd: formatUsd(minBuyUsd),
    maxUsd: formatUsd(maxBuyUsd),
  });
}

function slippage(minTokensOut: bigint, tokensOut: bigint): SlippageExceeded {
  return new SlippageExceeded(
    'The buy would receive fewer tokens than the minimum.',
    formatTokens(minTokensOut),
    formatTokens(tokensOut),
  );
}

/** The price and guard of a buy, checked against the current curve; nothing is written except held quotes. */
/**
 * `phase` `apply`: a settled payment being applied (the reconciler's retry): a pool buy's swap may
 * already be recorded or mined, and it enforces the bound itself, so the pool is not re-checked.
 */
export async function planBuy(deps: AppDeps, req: BuyRequest, callerNetwork?: Network, phase: 'price' | 'apply' = 'price'): Promise<BuyPlan> {
  const now = deps.clock.now();
  return deps.uow.read(async (stores) => {
    if (req.kind === 'quote') {
      const quote = await stores.quotes.get(req.quoteId);
      if (!quote) throw new QuoteNotFound(req.quoteId);
      if (quote.side !== 'buy') throw ValidationError.of('quoteId', 'is a sell quote; use token_sell');
      if (quote.expiresAt <= now) throw new QuoteExpired(quote.quoteId, quote.expiresAt.toISOString());
      const token = await loadVenueToken(stores, quote.tokenId, callerNetwork);
      if (token.state === 'GRADUATED') return checkedPoolPlan(deps, token, quote.usdAmount, quote.minOut, quote.quoteId, phase);
      return checkedPlan(token, quote.usdAmount, quote.minOut, quote.quoteId);
    }
    const token = await loadVenueToken(stores, req.tokenId, callerNetwork);
    if (token.state === 'GRADUATED') return planPoolBuy(deps, stores, token, req, now, phase);
    if (req.kind === 'usd') {
      checkBuySize(deps, req.usdAmount, { usdAmount: req.usdAmount });
      return checkedPlan(token, req.usdAmount, req.minTokensOut ?? 0n, null);
    }
    // Held for the quote TTL so the unpaid request and its paid retry see one price.
    let quote = await stores.quotes.getHeld(holdKey(token.tokenId, req.tokens), now);
    if (!quote) {
      const q = quoteBuyForTokens(token.params, token.curve, req.tokens);
      quote = buyQuote(deps, token, q.grossUsd, q.tokensOut, req.tokens, q.feeUsd, 0n, now);
      await stores.quotes.save(quote, holdKey(token.tokenId, req.tokens));
    }
    if (req.maxUsd !== undefined && quote.usdAmount > req.maxUsd) {
      throw new SlippageExceeded(
        'The tokens cost more than maxUsd.',
        formatUsd(req.maxUsd),
        formatUsd(quote.usdAmount),
        { quoteId: quote.quoteId },
      );
    }
    checkBuySize(deps, quote.usdAmount, { tokens: req.tokens });
    return checkedPlan(token, quote.usdAmount, req.tokens, quote.quoteId);
  });
}

function checkedPlan(token: Token, grossUsd: bigint, minTokensOut: bigint, quoteId: string | null): BuyPlan {
  const q = quoteBuyWithUsd(token.params, token.curve, grossUsd);
  if (q.tokensOut < minTokensOut) throw slippage(minTokensOut, q.tokensOut);
  return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId, venue: 'curve' };
}

/** The token a buy trades: ACTIVE on its curve, or GRADUATED with its pool (else TOKEN_GRADUATED). */
async function loadVenueToken(stores: Stores, tokenId: string, callerNetwork: Network | undefined, forUpdate = false): Promise<Token> {
  const token = await loadToken(stores, tokenId, forUpdate);
  if (callerNetwork !== undefined && callerNetwork !== token.network) throw new TokenNetworkMismatch(token.network, callerNetwork);
  if (token.state === 'GRADUATED' && token.pool?.state !== 'CREATED') throw new TokenGraduated(token.tokenId, token.pool?.state === 'FAILED');
  return token;
}

/** A buy of a graduated token, priced on its pool now; the bound is the caller's, or the quote less the default slippage. */
async function planPoolBuy(
  deps: AppDeps,
  stores: Stores,
  token: Token,
  req: Exclude<BuyRequest, { kind: 'quote' }>,
  now: Date,
  phase: 'price' | 'apply',
): Promise<BuyPlan> {
  const { quoter, ref } = venueOf(deps, token, 'buy');
  const on = { side: 'buy' as const, params: token.params, curve: token.curve, ...(ref ? { token: ref } : {}) };
  if (req.kind === 'usd') {
    checkBuySize(deps, req.usdAmount, { usdAmount: req.usdAmount });
    const priced = await quoter.price({ ...on, usdAmount: req.usdAmount });
    const bound = req.minTokensOut ?? minOut(priced.tokens, deps.settings.defaultSlippageBps);
    if (phase === 'price' && priced.tokens < bound) throw slippage(bound, priced.tokens);
    return { tokenId: token.tokenId, network: token.network, grossUsd: req.usdAmount, minTokensOut: bound, quoteId: null, venue: 'uniswap-v2' };
  }
  let quote = await stores.quotes.getHeld(holdKey(token.tokenId, req.tokens), now);
  if (!quote) {
    const priced = await quoter.price({ ...on, tokens: req.tokens });
    quote = buyQuote(deps, token, priced.usdAmount, priced.tokens, req.tokens, priced.feeUsd, 0n, now, priced.provider);
    await stores.quotes.save(quote, holdKey(token.tokenId, req.tokens));
  }
  if (req.maxUsd !== undefined && quote.usdAmount > req.maxUsd) {
    throw new SlippageExceeded('The tokens cost more than maxUsd.', formatUsd(req.maxUsd), formatUsd(quote.usdAmount), { quoteId: quote.quoteId });
  }
  checkBuySize(deps, quote.usdAmount, { tokens: req.tokens });
  return checkedPoolPlan(deps, token, quote.usdAmount, req.tokens, quote.quoteId, phase);
}

async function checkedPoolPlan(
  deps: AppDeps,
  token: Token,
  grossUsd: bigint,
  minTokensOut: bigint,
  quoteId: string | null,
  phase: 'price' | 'apply',
): Promise<BuyPlan> {
  if (phase === 'apply') return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId, venue: 'uniswap-v2' };
  const { quoter, ref } = venueOf(deps, token, 'buy');
  const priced = await quoter.price({ side: 'buy', params: token.params, curve: token.curve, ...(ref ? { token: ref } : {}), usdAmount: grossUsd });
  if (priced.tokens < minTokensOut) throw slippage(minTokensOut, priced.tokens);
  return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId, venue: 'uniswap-v2' };
}

export function buyQuote(
  deps: AppDeps,
  token: Token,
  usdAmount: bigint,
  tokens: bigint,
  minOut: bigint,
  feeUsd: bigint,
  slippageBps: bigint,
  now: Date,
  provider: string = deps.tradeQuoter.name,
): Quote {
  return {
    quoteId: deps.ids.next('qte'),
    tokenId: token.tokenId,
    network: token.network,
    side: 'buy',
    usdAmount,
    tokens,
    minOut,
    feeUsd,
    slippageBps,
    provider,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.settings.quoteTtlSeconds * 1000),
  };
}

export interface BuyCommand {
  plan: BuyPlan;
  buyer: string;
  /** The network of the buyer's payment. */
  network: Network;
}

/** Executes a planned buy under the token's lock. */
export function buyToken(deps: AppDeps, cmd: BuyCommand, paid?: Paid<BuyResult>): Promise<BuyResult> {
  if (cmd.plan.venue === 'uniswap-v2') return buyOnPool(deps, cmd, paid);
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const token = await loadTradableToken(stores, cmd.plan.tokenId, cmd.network, true);
    const q = quoteBuyWithUsd(token.params, token.curve, cmd.plan.grossUsd);
    if (q.tokensOut < cmd.plan.minTokensOut) throw slippage(cmd.plan.minTokensOut, q.tokensOut);
    const before =
      (await stores.positions.get(token.network, cmd.buyer, token.tokenId)) ??
      emptyPosition(token.network, cmd.buyer, token.tokenId, now);
    const position = applyBuy(before, q.tokensOut, q.grossUsd, now);
    const written = await recordTrade(deps, stores, {
      token,
      curve: q.after,
      position,
      side: 'buy',
      usdAmount: q.grossUsd,
      feeUsd: q.feeUsd,
      tokenAmount: q.tokensOut,
      payment: paid?.payment,
      now,
    });
    // The tokens are the buyer's in the ledger now; on chain they follow through the delivery outbox.
    const delivery = await stores.deliveries.enqueue(
      newDelivery({
        deliveryId: deps.ids.next('dlv'),
        network: token.network,
        tokenId: token.tokenId,
        wallet: cmd.buyer,
        amount: q.tokensOut,
        sourceId: written.trade.tradeId,
        now,
      }),
    );
    return {
      tokenId: token.tokenId,
      tokensReceived: formatTokens(q.tokensOut),
      usdSpent: formatUsd(q.grossUsd),
      feeUsd: formatUsd(q.feeUsd),
      priceUsd: averagePriceUsd(q.grossUsd, q.tokensOut),
      spotPriceUsd: spotPriceUsd(written.token.curve),
      position: positionView(position, written.token),
      trade: tradeView(written.trade),
      delivery: deliveryView(delivery),
      payment: paid
        ? {
            paymentId: paid.payment.paymentId,
            network: paid.payment.network,
            payer: paid.payment.payer,
            transaction: paid.payment.settlementTx,
          }
        : null,
    };
  });
}

/**
 * A buy of a graduated token (SPEC §14): custody swaps the paid USDC less our fee on the pool
 * with the plan's bound as amountOutMin (pool-swap.ts: never sent when the bound cannot be met,
 * refunded when the swap reverts), then the trade is booked from what the swap really gave and
 * the tokens are delivered to the buyer through the delivery outbox, as on the curve.
 */
async function buyOnPool(deps: AppDeps, cmd: BuyCommand, paid?: Paid<BuyResult>): Promise<BuyResult> {
  const key = paid?.payment.paymentId ?? deps.ids.next('pay');
  const token = await deps.uow.read((s) => loadVenueToken(s, cmd.plan.tokenId, cmd.network));
  const feeUsd = feeOn(cmd.plan.grossUsd, token.params.feeBps);
  const swap = await swapOnPool(deps, key, token, {
    side: 'buy',
    amountIn: cmd.plan.grossUsd - feeUsd,
    amountOutMin: cmd.plan.minTokensOut,
    describe: formatTokens,
  });
  const pool = await dexOf(deps).reserves(token.network, token.address!).catch(() => null);
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const locked = await loadToken(stores, token.tokenId, true);
    const before = (await stores.positions.get(locked.network, cmd.buyer, locked.tokenId)) ?? emptyPosition(locked.network, cmd.buyer, locked.tokenId, now);
    const position = applyBuy(before, swap.amountOut, cmd.plan.grossUsd, now);
    const written = await recordTrade(deps, stores, {
      token: locked,
      curve: null,
      position,
      side: 'buy',
      usdAmount: cmd.plan.grossUsd,
      feeUsd,
      tokenAmount: swap.amountOut,
      payment: paid?.payment,
      now,
      venue: 'uniswap-v2',
    });
    const delivery = await stores.deliveries.enqueue(
      newDelivery({ deliveryId: deps.ids.next('dlv'), network: locked.network, tokenId: locked.tokenId, wallet: cmd.buyer, amount: swap.amountOut, sourceId: written.trade.tradeId, now }),
    );
    return {
      tokenId: locked.tokenId,
      tokensReceived: formatTokens(swap.amountOut),
      usdSpent: formatUsd(cmd.plan.grossUsd),
      feeUsd: formatUsd(feeUsd),
      priceUsd: averagePriceUsd(cmd.plan.grossUsd, swap.amountOut),
      spotPriceUsd: pool ? averagePriceUsd(pool.usd, pool.tokens) : spotPriceUsd(locked.curve),
      position: positionView(position, written.token),
      trade: tradeView(written.trade),
      delivery: deliveryView(delivery),
      payment: paid ? { paymentId: paid.payment.paymentId, network: paid.payment.network, payer: paid.payment.payer, transaction: paid.payment.settlementTx } : null,
    };
  });
}
