/**
 * Buying, in the three variants of docs/api.md ("Paid endpoints": token_buy_usd, token_buy_tokens,
 * token_buy_quote), on the token's venue (trading/venues: its curve, or its pool once graduated).
 * Each variant is first turned into a plan — the exact gross USD to charge and the least tokens to
 * accept — before any payment is asked for; executing the plan re-checks it on the venue.
 */
import { QuoteExpired, QuoteNotFound, SlippageExceeded, ValidationError } from '../../domain/errors.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import type { Quote } from '../../domain/quote.js';
import type { Token } from '../../domain/token.js';
import type { AppDeps } from '../kit/deps.js';
import type { Paid } from '../kit/paid.js';
import { checkedToken } from './load-token.js';
import { isNotSent, type NotSent } from '../../ports/custody-transaction-store.js';
import type { PoolSwap } from '../../ports/pool-swap-store.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { BuyCommand, BuyPlan, BuyResult, TradePhase, TradeVenue } from './venues/trade-venue.js';
import { venueFor, venueNamed, type VenueDeps } from './venues/venue-for.js';

export type { BuyCommand, BuyPlan, BuyResult } from './venues/trade-venue.js';

export type BuyRequest = (
  | { kind: 'usd'; tokenId: string; usdAmount: bigint; minTokensOut?: bigint | undefined }
  | { kind: 'tokens'; tokenId: string; tokens: bigint; maxUsd?: bigint | undefined }
  | { kind: 'quote'; quoteId: string }
) & {
  /** Who referred the buy: earns a share of its fee. */
  referrer?: string | null | undefined;
};

/** Where a token_buy_tokens price is held: per asking wallet (decision 0040), `anyone` for an ask naming none. */
const holdKey = (tokenId: string, tokens: bigint, wallet: string | undefined) => `buy_tokens:${tokenId}:${tokens}:${wallet?.toLowerCase() ?? 'anyone'}`;

/**
 * A buy's gross USD must lie within the configured bounds. The bounds are dollars, so the
 * message speaks dollars even when the caller asked for tokens, and names what they cost.
 */
export function checkBuySize(deps: Pick<AppDeps, 'settings'>, usd: bigint, asked: { usdAmount: bigint } | { tokens: bigint }): void {
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

/**
 * The price and bound of a buy, checked on the token's venue now; nothing is written except held
 * quotes. `phase` `ask`: the 402 of a request without payment; `apply`: a settled payment being
 * applied (the reconciler's retry) — its quote or held price as of `paidAt`, when it was paid.
 * `wallet`: who asks or pays, when known.
 */
export async function planBuy(
  deps: VenueDeps & Pick<AppDeps, 'tokenRows'>,
  req: BuyRequest,
  callerNetwork?: Network,
  phase: TradePhase = 'price',
  wallet?: string,
  paidAt?: Date,
): Promise<BuyPlan> {
  const now = deps.clock.now();
  const offeredAt = phase === 'apply' && paidAt ? paidAt : now;
  if (req.kind === 'usd') {
    // No unit of work of its own: the token the feed vouches for takes no connection (decision 0057).
    const token = await checkedToken(deps, req.tokenId, 'buy', callerNetwork, phase);
    checkBuySize(deps, req.usdAmount, { usdAmount: req.usdAmount });
    return venueFor(deps, token, 'buy').planBuy(token, { grossUsd: req.usdAmount, minTokensOut: req.minTokensOut, quoteId: null }, phase);
  }
  return deps.uow.run(async (stores) => {
    if (req.kind === 'quote') {
      const quote = await stores.quotes.get(req.quoteId);
      if (!quote) throw new QuoteNotFound(req.quoteId);
      if (quote.side !== 'buy') throw ValidationError.of('quoteId', 'is a sell quote; use token_sell');
      if (quote.expiresAt <= offeredAt) throw new QuoteExpired(quote.quoteId, quote.expiresAt.toISOString());
      const token = await checkedToken(deps, quote.tokenId, 'buy', callerNetwork, phase, stores);
      return venueFor(deps, token, 'buy').planBuy(token, { grossUsd: quote.usdAmount, minTokensOut: quote.minOut, quoteId: quote.quoteId }, phase);
    }
    const token = await checkedToken(deps, req.tokenId, 'buy', callerNetwork, phase, stores);
    const venue = venueFor(deps, token, 'buy');
    const quote = await tokensPrice(deps, stores, { venue, token, tokens: req.tokens, wallet, phase, now, offeredAt });
    if (req.maxUsd !== undefined && quote.usdAmount > req.maxUsd) {
      throw new SlippageExceeded('The tokens cost more than maxUsd.', formatUsd(req.maxUsd), formatUsd(quote.usdAmount), { quoteId: quote.quoteId });
    }
    checkBuySize(deps, quote.usdAmount, { tokens: req.tokens });
    return venue.planBuy(token, { grossUsd: quote.usdAmount, minTokensOut: req.tokens, quoteId: quote.quoteId }, phase);
  });
}

/**
 * token_buy_tokens' price (decision 0040): held for the quote TTL for the wallet it was offered
 * to, so that wallet's paid retry sees the price it signed, and never offered to another. A 402
 * is never above the live cost: a held price the live one undercuts (a launch fee decaying, a
 * sell) is replaced. A payer that asked without naming itself pays the price held for those
 * asks, taken over as its own.
 */
async function tokensPrice(
  deps: Pick<AppDeps, 'ids' | 'tradeQuoter' | 'settings'>,
  stores: Stores,
  a: { venue: TradeVenue; token: Token; tokens: bigint; wallet: string | undefined; phase: TradePhase; now: Date; offeredAt: Date },
): Promise<Quote> {
  const own = holdKey(a.token.tokenId, a.tokens, a.wallet);
  const held = await stores.quotes.getHeld(own, a.offeredAt);
  if (a.phase !== 'ask') {
    if (held) return held;
    const unnamed = a.wallet ? await stores.quotes.getHeld(holdKey(a.token.tokenId, a.tokens, undefined), a.offeredAt) : null;
    if (unnamed) {
      const taken = { ...unnamed, quoteId: deps.ids.next('qte') };
      await stores.quotes.save(taken, own);
      return taken;
    }
  }
  const priced = await a.venue.price(a.token, { side: 'buy', tokens: a.tokens });
  if (held && held.usdAmount <= priced.usdAmount) return held;
  const quote = buyQuote(deps, a.token, priced.usdAmount, priced.tokens, a.tokens, priced.feeUsd, 0n, a.now, priced.provider);
  await stores.quotes.save(quote, own);
  return quote;
}

export function buyQuote(
  deps: Pick<AppDeps, 'ids' | 'tradeQuoter' | 'settings'>,
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

/**
 * The plan of a buy whose pool swap custody recorded (decision 0061): the swap's own terms — its
 * gross USD, its bound — on its token. A settled payment applied again (the reconciler's retry),
 * or a held buy resumed, books that swap and prices nothing: a quote purged since, a held price
 * replaced, a rule changed would refuse a buy whose USDC the swap may have moved already, and
 * refund it too. Null when nothing is recorded for the key, only a refusal, or a swap recorded
 * before its terms were kept: the buy is planned as usual.
 */
export function buyPlanOfSwap(recorded: PoolSwap | NotSent | null, network: Network): BuyPlan | null {
  if (!recorded || isNotSent(recorded) || !recorded.buy) return null;
  const { grossUsd, minTokensOut } = recorded.buy;
  return { tokenId: recorded.tokenId, network, grossUsd, minTokensOut, quoteId: null, venue: 'uniswap-v2' };
}

/** `buyPlanOfSwap` of the swap recorded for a payment. */
export async function recordedBuyPlan(deps: Pick<AppDeps, 'uow'>, paymentId: string, network: Network): Promise<BuyPlan | null> {
  return buyPlanOfSwap(await deps.uow.run((s) => s.swaps.get(paymentId)), network);
}

/** Executes a planned buy on the venue that planned it (a curve plan on a token graduated meanwhile: TOKEN_GRADUATED). */
export function buyToken(deps: VenueDeps, cmd: BuyCommand, paid?: Paid<BuyResult>): Promise<BuyResult> {
  return venueNamed(deps, cmd.plan.venue ?? 'curve').buy(cmd, paid);
}
