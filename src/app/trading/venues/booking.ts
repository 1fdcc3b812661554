/**
 * What a buy or a sell books once its venue executed it, the same on every venue: the position,
 * the trade (record-trade.ts), the tokens on their way to the buyer or the proceeds to the
 * seller, and the answer. The venue says what moved; this says what the books make of it.
 */
import { averagePriceUsd } from '../../../domain/curve.js';
import { newDelivery, type Delivery } from '../../../domain/delivery.js';
import { formatTokens, formatUsd } from '../../../domain/money.js';
import type { Payment } from '../../../domain/payment.js';
import { newPayout, type Payout } from '../../../domain/payout.js';
import { applyBuy, applySell, emptyPosition, withTransfersIn, type Position } from '../../../domain/position.js';
import type { Token } from '../../../domain/token.js';
import type { Trade, VenueName } from '../../../domain/trade.js';
import type { Stores } from '../../../ports/unit-of-work.js';
import type { AppDeps } from '../../kit/deps.js';
import type { Funding } from '../../kit/paid.js';
import { deliveryView, payoutView, positionView, tradeView } from '../../kit/views.js';
import { recordTrade } from '../record-trade.js';
import type { BuyResult, SellResult } from './trade-venue.js';

type BookingDeps = Pick<AppDeps, 'ids' | 'settings'>;

export interface Booked {
  /** The token as it stands after the trade. */
  token: Token;
  trade: Trade;
  position: Position;
}

interface Moved {
  /** The token as the trade left it. */
  token: Token;
  venue: VenueName;
  /** Gross USD: paid in on a buy, taken out of the venue on a sell (fee included). */
  grossUsd: bigint;
  feeUsd: bigint;
  tokens: bigint;
  payment: Payment | undefined;
  now: Date;
  /** Who referred the trade (a share of its fee). */
  referrer?: string | null | undefined;
}

/** The buyer's position and the trade of a buy of `tokens` for `grossUsd`. */
export async function bookBuy(deps: BookingDeps, stores: Stores, buyer: string, m: Moved): Promise<Booked> {
  const { token, now } = m;
  const before = (await stores.positions.get(token.network, buyer, token.tokenId)) ?? emptyPosition(token.network, buyer, token.tokenId, now);
  const position = applyBuy(before, m.tokens, m.grossUsd, now);
  const written = await recordTrade(deps, stores, { ...m, position, side: 'buy', usdAmount: m.grossUsd, tokenAmount: m.tokens });
  return { ...written, position };
}

/** The tokens are the buyer's in the ledger now; on chain they follow through the delivery outbox. */
export async function deliverBought(deps: BookingDeps, stores: Stores, buyer: string, booked: Booked, now: Date): Promise<Delivery> {
  const { trade } = booked;
  const delivery = newDelivery({ deliveryId: deps.ids.next('dlv'), network: trade.network, tokenId: trade.tokenId, wallet: buyer, amount: trade.tokenAmount, sourceId: trade.tradeId, now });
  await stores.deliveries.add(delivery); // the trade was made in this transaction: its source is new
  return delivery;
}

/** `delivery` null: the tokens stay in custody (a vested dev buy). */
export function buyResult(booked: Booked, delivery: Delivery | null, spotPriceUsd: string, paid: Funding<BuyResult> | undefined): BuyResult {
  const { trade } = booked;
  return {
    tokenId: trade.tokenId,
    tokensReceived: formatTokens(trade.tokenAmount),
    usdSpent: formatUsd(trade.usdAmount),
    feeUsd: formatUsd(trade.feeUsd),
    priceUsd: averagePriceUsd(trade.usdAmount, trade.tokenAmount),
    spotPriceUsd,
    position: positionView(booked.position, booked.token),
    trade: tradeView(trade),
    delivery: delivery ? deliveryView(delivery) : null,
    payment: paid?.payment
      ? { paymentId: paid.payment.paymentId, network: paid.payment.network, payer: paid.payment.payer, transaction: paid.payment.settlementTx }
      : null,
  };
}

/**
 * A sell of pulled tokens: the seller's position (tokens it received by transfer booked first),
 * the trade, and the proceeds after our fee queued as a payout.
 *
 * The proceeds are USDC, the curve's and the pool's own asset, 1:1 with the USD booked — whatever
 * asset paid the $0.01 fee (decision 0021): the treasury holds the curve's reserve in USDC, and a
 * rate taken from the fee's held quote would be a free option on EUR/USD.
 */
export async function bookSell(deps: BookingDeps, stores: Stores, seller: string, m: Moved): Promise<Booked & { payout: Payout }> {
  const { token, now } = m;
  const usdOut = m.grossUsd - m.feeUsd;
  const held = (await stores.positions.get(token.network, seller, token.tokenId)) ?? emptyPosition(token.network, seller, token.tokenId, now);
  const position = applySell(withTransfersIn(held, m.tokens, now), m.tokens, usdOut, now);
  const written = await recordTrade(deps, stores, { ...m, position, side: 'sell', usdAmount: m.grossUsd, tokenAmount: m.tokens });
  const payout = newPayout({
    payoutId: deps.ids.next('pout'),
    network: token.network,
    wallet: seller,
    asset: 'USDC',
    amount: usdOut,
    reason: 'sell',
    sourceId: written.trade.tradeId,
    now,
  });
  await stores.payouts.add(payout); // the trade was made in this transaction: its source is new
  return { ...written, position, payout };
}

export function sellResult(booked: Booked & { payout: Payout }, spotPriceUsd: string, pullTx: string): SellResult {
  const { trade, payout } = booked;
  return {
    tokenId: trade.tokenId,
    tokensSold: formatTokens(trade.tokenAmount),
    usdReceived: formatUsd(payout.amount),
    feeUsd: formatUsd(trade.feeUsd),
    priceUsd: averagePriceUsd(payout.amount, trade.tokenAmount),
    spotPriceUsd,
    position: positionView(booked.position, booked.token),
    trade: tradeView(trade),
    payout: payoutView(payout),
    pullTx,
  };
}
