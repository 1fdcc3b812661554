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
import type { Network } from '../../domain/network.js';
import { newDelivery } from '../../domain/delivery.js';
import { applyBuy, emptyPosition } from '../../domain/position.js';
import type { Quote } from '../../domain/quote.js';
import type { Token } from '../../domain/token.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { deliveryView, positionView, tradeView, type DeliveryView, type PositionView, type TradeView } from '../views.js';
import { loadTradableToken } from '../trading/load-token.js';
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
export async function planBuy(deps: AppDeps, req: BuyRequest, callerNetwork?: Network): Promise<BuyPlan> {
  const now = deps.clock.now();
  return deps.uow.read(async (stores) => {
    if (req.kind === 'quote') {
      const quote = await stores.quotes.get(req.quoteId);
      if (!quote) throw new QuoteNotFound(req.quoteId);
      if (quote.side !== 'buy') throw ValidationError.of('quoteId', 'is a sell quote; use token_sell');
      if (quote.expiresAt <= now) throw new QuoteExpired(quote.quoteId, quote.expiresAt.toISOString());
      const token = await loadTradableToken(stores, quote.tokenId, callerNetwork);
      return checkedPlan(token, quote.usdAmount, quote.minOut, quote.quoteId);
    }
    const token = await loadTradableToken(stores, req.tokenId, callerNetwork);
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
  return { tokenId: token.tokenId, network: token.network, grossUsd, minTokensOut, quoteId };
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
