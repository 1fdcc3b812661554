/**
 * Orders that wait (docs/api.md "Orders", decision 0047): a limit buy, a stop-loss or a
 * take-profit, each carrying a signed authorization the service holds and uses only when the
 * token's price crosses the order's trigger.
 *
 *   OPEN ──▶ EXECUTING ──▶ EXECUTED
 *     │            └─────▶ FAILED     (the authorization could not be used; nothing booked)
 *     ├──▶ CANCELLED                  (by its wallet)
 *     └──▶ EXPIRED                    (expiresAt passed)
 *
 * Every move is a compare-and-set on the state it leaves, so two processes never move one order
 * twice; EXECUTING → EXECUTED commits with the trade.
 */
import { InvariantViolation, ValidationError } from './errors.js';
import { BPS_DENOMINATOR, feeOn } from './fees.js';
import { ceilDiv, formatUsd, MAX_USD_INPUT, TOKEN_UNIT, USDC_UNIT } from './money.js';
import type { Network, PaymentAsset } from './network.js';
import type { TokenAuthorization } from './token-authorization.js';

export const ORDER_KINDS = ['limit_buy', 'stop_loss', 'take_profit'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];
export type OrderState = 'OPEN' | 'EXECUTING' | 'EXECUTED' | 'FAILED' | 'CANCELLED' | 'EXPIRED';

/** An order may wait at most this long. */
export const MAX_ORDER_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/**
 * The least a stop-loss or take-profit sells: one whole token (a limit buy's least is the
 * smallest buy, MIN_BUY_USD). Less is dust the executor would check every pass for nothing
 * (docs/decisions/0067).
 */
export const MIN_ORDER_TOKENS = TOKEN_UNIT;
/** Trigger prices are USD per whole token, exact to 18 decimals. */
export const PRICE_DECIMALS = 18;

export interface Order {
  readonly orderId: string;
  readonly network: Network;
  readonly tokenId: string;
  readonly wallet: string;
  readonly kind: OrderKind;
  /** USD per whole token × 10^18. */
  readonly triggerPrice: bigint;
  /** limit_buy: the USDC units to spend (fee included); null for a sell. */
  readonly usdAmount: bigint | null;
  /** stop_loss / take_profit: the token units to sell; null for a buy. */
  readonly tokens: bigint | null;
  readonly minTokensOut: bigint | null;
  readonly minUsdOut: bigint | null;
  /** The stablecoin a buy's authorization moves; null for a sell (its authorization is the token's). */
  readonly asset: PaymentAsset | null;
  readonly authorization: TokenAuthorization;
  readonly expiresAt: Date;
  readonly state: OrderState;
  /** Why it FAILED (or how it was CANCELLED); null otherwise. */
  readonly reason: string | null;
  /** The trade that executed it. */
  readonly tradeId: string | null;
  /** The placement's payment. */
  readonly paymentId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const isBuyOrder = (o: Pick<Order, 'kind'>): boolean => o.kind === 'limit_buy';

const NEXT: Record<OrderState, readonly OrderState[]> = {
  OPEN: ['EXECUTING', 'CANCELLED', 'EXPIRED'],
  EXECUTING: ['EXECUTED', 'FAILED'],
  EXECUTED: [],
  FAILED: [],
  CANCELLED: [],
  EXPIRED: [],
};

export function transitionOrder(o: Order, to: OrderState, now: Date, patch: { reason?: string | null; tradeId?: string | null } = {}): Order {
  if (!NEXT[o.state].includes(to)) throw new InvariantViolation(`order ${o.orderId} cannot move ${o.state} → ${to}`);
  return { ...o, state: to, updatedAt: now, ...patch };
}

/** A price as the venue holds it: `usd` USDC units against `tokens` token units (curve reserves, pool reserves). */
export interface SpotPrice {
  usd: bigint;
  tokens: bigint;
}

/** -1, 0, 1 as the trigger (USD/token × 1e18) is below, at or above `spot`, exactly. */
export function compareTrigger(trigger: bigint, spot: SpotPrice): -1 | 0 | 1 {
  // trigger / 1e18  vs  (usd / 1e6) / (tokens / 1e18)  ⇔  trigger · tokens · 1e6  vs  usd · 1e18 · 1e18
  const left = trigger * spot.tokens * USDC_UNIT;
  const right = spot.usd * TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `spot` as a trigger is written (USD/token × 1e18), rounded down. */
export function priceOfSpot(spot: SpotPrice): bigint {
  return (spot.usd * TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS)) / (spot.tokens * USDC_UNIT);
}

/**
 * The tokens (units) `netUsd` (USDC units) buys at exactly `trigger` (USD/token × 1e18), rounded
 * down: a limit buy's least, so that it never pays more per token than its trigger.
 */
export function tokensAtTrigger(trigger: bigint, netUsd: bigint): bigint {
  return (netUsd * TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS)) / (USDC_UNIT * trigger);
}

/** The USDC units `tokens` (units) fetch at exactly `price` (USD/token × 1e18), rounded up. */
export function usdAtPrice(price: bigint, tokens: bigint): bigint {
  return ceilDiv(tokens * price * USDC_UNIT, TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS));
}

/**
 * How far below its trigger a stop-loss may sell when it gives no minUsdOut of its own: 5 %. A
 * stop-loss is crossed by the fall that triggers it, so its band must let an ordinary sharp fall
 * through — and it bounds what a sandwich can take from it (docs/decisions/0067).
 */
export const STOP_LOSS_BAND_BPS = 500n;

/**
 * A sell order's least proceeds (USDC units, after a fee of `feeBps`), taken from its trigger —
 * never from the price it meets when it executes, which whoever trades before it can move: a
 * take-profit's `tokens` at exactly its trigger, less the fee (or its own `minUsdOut` when
 * higher), so it never sells for less per token than its trigger, before the fee; a
 * stop-loss's own `minUsdOut`, or its tokens at its trigger less STOP_LOSS_BAND_BPS, less the fee.
 */
export function sellOrderBound(o: Pick<Order, 'kind' | 'triggerPrice' | 'tokens' | 'minUsdOut'>, feeBps: bigint): bigint {
  const net = (gross: bigint) => gross - feeOn(gross, feeBps);
  if (o.kind === 'stop_loss') {
    // Rounded down: the band is a bound on price, and a dust order's unit of rounding is no reason never to execute.
    const band = (o.triggerPrice * (BPS_DENOMINATOR - STOP_LOSS_BAND_BPS)) / BPS_DENOMINATOR;
    return o.minUsdOut ?? net((o.tokens! * band * USDC_UNIT) / (TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS)));
  }
  // More than a gross one unit short of the trigger's pays out: only a sale at the trigger or above
  // meets it, whatever the fee's rounding does to two grosses a unit apart.
  const gross = usdAtPrice(o.triggerPrice, o.tokens!);
  const atTrigger = gross === 0n ? 0n : net(gross - 1n) + 1n;
  return o.minUsdOut !== null && o.minUsdOut > atTrigger ? o.minUsdOut : atTrigger;
}

/** Whether the price `spot` crosses the order's trigger: at or below for a limit buy and a stop-loss, at or above for a take-profit. */
export function crosses(o: Pick<Order, 'kind' | 'triggerPrice'>, spot: SpotPrice): boolean {
  const c = compareTrigger(o.triggerPrice, spot);
  return o.kind === 'take_profit' ? c <= 0 : c >= 0;
}

/**
 * Price-then-time priority among orders a price crosses: the order that asked for the better
 * price first — a higher trigger for a limit buy or a stop-loss (crossed first on the way down),
 * a lower one for a take-profit (crossed first on the way up) — then the older; across kinds,
 * sells before buys (a falling price reaches stop-losses as it reaches limit buys), then time.
 */
export function byPriority(a: Order, b: Order): number {
  const side = (o: Order) => (isBuyOrder(o) ? 1 : 0);
  if (side(a) !== side(b)) return side(a) - side(b);
  if (a.kind === b.kind && a.triggerPrice !== b.triggerPrice) {
    const higherFirst = a.kind !== 'take_profit';
    return (a.triggerPrice > b.triggerPrice) === higherFirst ? -1 : 1;
  }
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0);
}

/** The next order to execute at `spot`: the first by priority among those it crosses, or none. */
export function nextCrossed(open: readonly Order[], spot: SpotPrice, now: Date): Order | null {
  const crossed = open.filter((o) => o.state === 'OPEN' && o.expiresAt > now && crosses(o, spot));
  return crossed.sort(byPriority)[0] ?? null;
}

/**
 * The highest trigger (USD/token × 1e18) a token of `totalSupply` units could ever reach: the
 * price at which its whole supply is worth MAX_USD_INPUT, more USD than there is. A take-profit
 * above it would wait for ever after its fee was paid (docs/decisions/0065).
 */
export function highestTrigger(totalSupply: bigint): bigint {
  return (MAX_USD_INPUT * TOKEN_UNIT * 10n ** BigInt(PRICE_DECIMALS)) / (USDC_UNIT * totalSupply);
}

/** A trigger past what the token could ever reach (highestTrigger): refused, naming the field. */
export function checkTriggerInReach(triggerPrice: bigint, totalSupply: bigint): void {
  if (triggerPrice > highestTrigger(totalSupply)) {
    throw ValidationError.of('triggerPriceUsd', `is more than this token could ever reach (its whole supply worth more than $${formatUsd(MAX_USD_INPUT)})`);
  }
}
