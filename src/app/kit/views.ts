/**
 * The resource shapes of docs/api.md "Resources" as the API shows them: amounts as decimal strings, times as
 * ISO-8601 UTC, addresses checksummed. The only place that turns domain values into API JSON.
 */
import type { z } from 'zod';
import type { Delivery } from '../../domain/delivery.js';
import type { Network } from '../../domain/network.js';
import {
  averagePriceUsd,
  marketCapUsd,
  progress,
  realUsdReserve,
  remainingSupply,
  spotPriceUsd,
} from '../../domain/curve.js';
import type { StoredEvent } from '../../domain/event.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import type { Payment } from '../../domain/payment.js';
import type { Payout } from '../../domain/payout.js';
import { valuePosition, type Position } from '../../domain/position.js';
import type { Quote } from '../../domain/quote.js';
import { creatorEarners, linkUrls, type Token } from '../../domain/token.js';
import { cliffEndsAtMs, lockedOf, vestingEndsAtMs, type DevVesting } from '../../domain/vesting.js';
import { venueUsd, type Trade } from '../../domain/trade.js';
import { formatUsdPrice } from '../../domain/usd-price.js';
import type { TransferCursor } from '../../ports/transfer-store.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { ProviderAnswer, ProviderState } from '../pricing/index.js';
import type { indexerOutput, positionOutput, tokenOutput } from './output-schemas.js';

/** A token as the API answers it (docs/api.md "Resources"): the shape of `tokenOutput`. */
export type TokenView = z.output<typeof tokenOutput>;

export const DAY_MS = 24 * 60 * 60 * 1000;

export function tokenView(t: Token, stats: { volumeUsd24h: bigint; trades24h: number; holders: number; creatorEarningsUsd?: bigint }): TokenView {
  return {
    tokenId: t.tokenId,
    network: t.network,
    name: t.name,
    symbol: t.symbol,
    description: t.description,
    imageUrl: t.imageUrl,
    thumbnailUrl: t.thumbnailUrl,
    creator: t.creator,
    links: linkUrls(t.links),
    // A fair launch still raising: its launch fee will start when its raise settles, decaying as long from then.
    launchFee: t.launchFee
      ? { startBps: Number(t.launchFee.startBps), endsAt: new Date((t.tradingSince ?? t.createdAt).getTime() + Number(t.launchFee.decayMs)).toISOString() }
      : null,
    platformReferrer: t.platformReferrer,
    feeMode: t.feeMode,
    creatorSplits: t.feeMode === 'cashback' ? null : creatorEarners(t).map((e) => ({ wallet: e.wallet, bps: e.bps })),
    vesting: t.vesting ? vestingView(t.vesting) : null,
    state: t.state,
    launchMode: t.launchMode,
    tradingSince: t.tradingSince?.toISOString() ?? null,
    decimals: 18,
    totalSupply: formatTokens(t.params.totalSupply),
    curve: {
      virtualUsdReserve: formatUsd(t.curve.virtualUsd),
      virtualTokenReserve: formatTokens(t.curve.virtualTokens),
      realUsdReserve: formatUsd(realUsdReserve(t.params, t.curve)),
      realTokenReserve: formatTokens(remainingSupply(t.params, t.curve)),
      tokensSold: formatTokens(t.curve.tokensSold),
      curveSupply: formatTokens(t.params.curveSupply),
      feeBps: Number(t.params.feeBps),
      progress: progress(t.params, t.curve),
    },
    priceUsd: spotPriceUsd(t.curve),
    marketCapUsd: formatUsd(marketCapUsd(t.params, t.curve)),
    volumeUsd24h: formatUsd(stats.volumeUsd24h),
    trades24h: stats.trades24h,
    address: t.address,
    deployment: {
      state: t.deployment.state,
      txHash: t.deployment.txHash,
      blockNumber: t.deployment.blockNumber === null ? null : t.deployment.blockNumber.toString(),
    },
    pool: t.pool ? { dex: t.pool.dex, state: t.pool.state, address: t.pool.address, txHash: t.pool.txHash } : null,
    holders: stats.holders,
    creatorEarningsUsd: formatUsd(stats.creatorEarningsUsd ?? 0n),
    createdAt: t.createdAt.toISOString(),
    graduatedAt: t.graduatedAt?.toISOString() ?? null,
  };
}

/**
 * A token with its 24-hour activity, holder count and creator earnings, read from the stores; a
 * caller building many views passes the creator earnings it read for all of them at once.
 */
export async function loadTokenView(stores: Stores, token: Token, now: Date, creatorEarningsUsd?: bigint): Promise<TokenView> {
  const [activity, holders, earned] = await Promise.all([
    stores.trades.activitySince(token.tokenId, new Date(now.getTime() - DAY_MS)),
    stores.positions.countHolders(token.tokenId),
    creatorEarningsUsd ?? stores.earnings.creatorTotals([token.tokenId]).then((totals) => totals.get(token.tokenId) ?? 0n),
  ]);
  return tokenView(token, { volumeUsd24h: activity.volumeUsd, trades24h: activity.trades, holders, creatorEarningsUsd: earned });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A vested dev buy: its schedule, and what is released and still locked. */
export function vestingView(v: DevVesting) {
  return {
    tokens: formatTokens(v.amount),
    releasedTokens: formatTokens(v.released),
    lockedTokens: formatTokens(lockedOf(v)),
    cliffSeconds: v.cliffSeconds,
    durationSeconds: v.durationSeconds,
    startsAt: iso(v.startsAtMs),
    cliffEndsAt: iso(cliffEndsAtMs(v)),
    endsAt: iso(vestingEndsAtMs(v)),
    nextReleaseAt: v.nextReleaseAtMs === null ? null : iso(v.nextReleaseAtMs),
  };
}

/** The vesting behind a position: the token creator's own, while the token has one. */
const vestingOf = (p: Position, token: Token): DevVesting | null => (token.vesting && p.wallet.toLowerCase() === token.creator.toLowerCase() ? token.vesting : null);

/** A position as the API answers it: the shape of `positionOutput`. */
export type PositionView = z.output<typeof positionOutput>;

export function positionView(p: Position, token: Token, onChainBalance: bigint | null = null): PositionView {
  const v = valuePosition(p, token.curve);
  const vesting = vestingOf(p, token);
  return {
    network: p.network,
    wallet: p.wallet,
    tokenId: p.tokenId,
    symbol: token.symbol,
    balance: formatTokens(p.balance),
    costBasisUsd: formatUsd(p.costBasisUsd),
    avgEntryPriceUsd: averagePriceUsd(p.costBasisUsd, p.balance),
    realizedPnlUsd: formatUsd(p.realizedPnlUsd),
    currentPriceUsd: spotPriceUsd(token.curve),
    valueUsd: formatUsd(v.valueUsd),
    unrealizedPnlUsd: formatUsd(v.unrealizedPnlUsd),
    onChainBalance: onChainBalance === null ? null : formatTokens(onChainBalance),
    lockedBalance: formatTokens(lockedOf(vesting)),
    vesting: vesting ? vestingView(vesting) : null,
    updatedAt: p.updatedAt.toISOString(),
  };
}

/**
 * How far positions follow transfers on chain (docs/decisions/0020): the last block whose
 * transfers are booked and the chain's head when the indexer last looked; nulls before it has.
 */
export type IndexerView = z.output<typeof indexerOutput>;

export function indexerView(network: Network, c: TransferCursor | null): IndexerView {
  if (!c) return { network, indexedBlock: null, headBlock: null, lagBlocks: null, confirmations: null, caughtUp: false, updatedAt: null };
  const indexed = c.blockNumber < 0n ? null : c.blockNumber;
  const lag = c.headBlock - c.blockNumber;
  return {
    network,
    indexedBlock: indexed === null ? null : indexed.toString(),
    headBlock: c.headBlock.toString(),
    lagBlocks: (lag > 0n ? lag : 0n).toString(),
    confirmations: c.confirmations,
    caughtUp: lag <= BigInt(c.confirmations),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function tradeView(t: Trade) {
  return {
    tradeId: t.tradeId,
    network: t.network,
    tokenId: t.tokenId,
    wallet: t.wallet,
    side: t.side,
    usdAmount: formatUsd(t.usdAmount),
    feeUsd: formatUsd(t.feeUsd),
    tokenAmount: formatTokens(t.tokenAmount),
    priceUsd: averagePriceUsd(t.usdAmount, t.tokenAmount),
    executionPriceUsd: averagePriceUsd(venueUsd(t), t.tokenAmount),
    paymentId: t.paymentId,
    settlementTx: t.settlementTx,
    venue: t.venue,
    createdAt: t.createdAt.toISOString(),
  };
}
export type TradeView = ReturnType<typeof tradeView>;

export function paymentView(p: Payment) {
  return {
    paymentId: p.paymentId,
    network: p.network,
    payer: p.payer,
    nonce: p.nonce,
    /** The stablecoin paid with; `amount` is in its units, `usdValue` what it is booked as. */
    asset: p.asset,
    amount: formatUsd(p.amount),
    usdValue: formatUsd(p.usdValue),
    quoteId: p.quoteId,
    resource: p.resource,
    state: p.state,
    settlementTx: p.settlementTx,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function payoutView(p: Payout) {
  return {
    payoutId: p.payoutId,
    network: p.network,
    wallet: p.wallet,
    asset: p.asset,
    amount: formatUsd(p.amount),
    reason: p.reason,
    state: p.state,
    txHash: p.txHash,
  };
}

export function deliveryView(d: Delivery) {
  return {
    deliveryId: d.deliveryId,
    network: d.network,
    tokenId: d.tokenId,
    wallet: d.wallet,
    amount: formatTokens(d.amount),
    state: d.state,
    txHash: d.txHash,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

export function quoteView(q: Quote) {
  const base = {
    quoteId: q.quoteId,
    tokenId: q.tokenId,
    network: q.network,
    side: q.side,
    usdAmount: formatUsd(q.usdAmount),
    tokens: formatTokens(q.tokens),
    priceUsd: averagePriceUsd(q.usdAmount, q.tokens),
    feeUsd: formatUsd(q.feeUsd),
    slippageBps: Number(q.slippageBps),
    provider: q.provider,
    expiresAt: q.expiresAt.toISOString(),
  };
  return q.side === 'buy'
    ? { ...base, minTokensOut: formatTokens(q.minOut) }
    : { ...base, minUsdOut: formatUsd(q.minOut) };
}

export function eventView(e: StoredEvent) {
  return {
    id: e.id,
    type: e.type,
    network: e.network,
    tokenId: e.tokenId,
    data: e.data,
    createdAt: e.createdAt.toISOString(),
  };
}

/** One source's answer in GET /api/prices: its price and age, or why there is none. */
export function providerAnswerView(a: ProviderAnswer, now: Date) {
  return {
    provider: a.provider,
    status: a.status,
    usdPrice: a.quote ? formatUsdPrice(a.quote.price) : null,
    observedAt: a.quote ? a.quote.observedAt.toISOString() : null,
    ageSeconds: a.quote ? ageSeconds(a.quote.observedAt, now) : null,
    reason: a.reason ?? null,
  };
}

export function providerStateView(p: ProviderState) {
  return {
    name: p.name,
    limit: p.limit,
    timeoutMs: p.timeoutMs,
    breaker: { ...p.breaker, openUntil: p.breaker.openUntil?.toISOString() ?? null },
    rateLimitedUntil: p.rateLimitedUntil?.toISOString() ?? null,
    lastFailure: p.lastFailure ? { ...p.lastFailure, at: p.lastFailure.at.toISOString() } : null,
  };
}

export function ageSeconds(observedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - observedAt.getTime()) / 1000));
}
