/**
 * How orders answer (docs/api.md "Orders"): one order, a wallet's orders, a token's book of OPEN
 * orders by price level — and the price the orders of a token are compared with, as the service
 * sees it now (its curve, or its pool once graduated).
 */
import { formatAmount, formatTokens, formatUsd } from '../../domain/money.js';
import { isBuyOrder, PRICE_DECIMALS, type Order, type OrderKind, type SpotPrice } from '../../domain/order.js';
import type { Token } from '../../domain/token.js';
import { dexOf } from '../custody/index.js';
import type { AppDeps } from '../kit/deps.js';

export const formatPrice = (price: bigint): string => formatAmount(price, PRICE_DECIMALS);
const opt = (v: bigint | null, f: (v: bigint) => string) => (v === null ? null : f(v));

export function orderView(o: Order) {
  return {
    orderId: o.orderId,
    tokenId: o.tokenId,
    network: o.network,
    wallet: o.wallet,
    kind: o.kind,
    state: o.state,
    triggerPriceUsd: formatPrice(o.triggerPrice),
    usdAmount: opt(o.usdAmount, formatUsd),
    tokens: opt(o.tokens, formatTokens),
    minTokensOut: opt(o.minTokensOut, formatTokens),
    minUsdOut: opt(o.minUsdOut, formatUsd),
    /** What the held authorization moves: a stablecoin for a buy, the token for a sell. */
    asset: o.asset ?? 'TOKEN',
    /** The held authorization's nonce and end: what a wallet cancels on chain with cancelAuthorization. */
    authorization: { from: o.authorization.from, nonce: o.authorization.nonce, validBefore: o.authorization.validBefore.toString() },
    expiresAt: o.expiresAt.toISOString(),
    reason: o.reason,
    tradeId: o.tradeId,
    paymentId: o.paymentId,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export type OrderView = ReturnType<typeof orderView>;

/** A token's OPEN orders by kind and trigger price: how many, and how much they buy or sell. */
export function orderBook(tokenId: string, open: readonly Order[], spot: SpotPrice | null) {
  const levels = new Map<string, { kind: OrderKind; price: bigint; orders: number; usd: bigint; tokens: bigint }>();
  for (const o of open) {
    const key = `${o.kind}|${o.triggerPrice}`;
    const level = levels.get(key) ?? { kind: o.kind, price: o.triggerPrice, orders: 0, usd: 0n, tokens: 0n };
    level.orders += 1;
    level.usd += o.usdAmount ?? 0n;
    level.tokens += o.tokens ?? 0n;
    levels.set(key, level);
  }
  const side = (buy: boolean) =>
    [...levels.values()]
      .filter((l) => isBuyOrder(l) === buy)
      .sort((a, b) => (a.price === b.price ? a.kind.localeCompare(b.kind) : a.price > b.price ? -1 : 1))
      .map((l) => ({
        kind: l.kind,
        triggerPriceUsd: formatPrice(l.price),
        orders: l.orders,
        ...(buy ? { usdAmount: formatUsd(l.usd) } : { tokens: formatTokens(l.tokens) }),
      }));
  return {
    tokenId,
    spotPriceUsd: spot ? spotPriceText(spot) : null,
    /** Limit buys, highest trigger first. */
    buys: side(true),
    /** Stop-losses and take-profits, highest trigger first. */
    sells: side(false),
  };
}

export const spotPriceText = (s: SpotPrice): string => formatPrice((s.usd * 10n ** 30n) / s.tokens);

/**
 * The price orders of `token` are compared with: its curve's reserves while it trades there (or
 * sells there after a failed pool), its pool's once the pool is open; null while it has no price
 * to trade at (its pool is being seeded, or cannot be read).
 */
export async function spotOf(deps: Pick<AppDeps, 'dex'>, token: Token): Promise<SpotPrice | null> {
  if (token.state === 'ACTIVE' || token.pool?.state === 'FAILED') return { usd: token.curve.virtualUsd, tokens: token.curve.virtualTokens };
  if (token.pool?.state !== 'CREATED' || !token.address || !deps.dex) return null;
  const pool = await dexOf(deps).reserves(token.network, token.address).catch(() => null);
  return pool && pool.tokens > 0n ? { usd: pool.usd, tokens: pool.tokens } : null;
}
