/**
 * Executing orders (docs/api.md "Orders"): after a token's price changes, the OPEN orders it
 * crosses execute one at a time in price-then-time priority (domain/order.ts), each re-reading the
 * price its predecessor left. Nothing here runs inside a paid trade's transaction: the executor
 * (workers/order-executor.ts) is woken after commits.
 *
 *   price crossed ─▶ bound met now? ── no ──▶ left OPEN ("missed")
 *                         │ yes
 *                         ▼
 *   OPEN → EXECUTING (compare-and-set: one process wins)
 *     buy:  collect the USDC (exactly once per order) ─▶ buy on the venue + EXECUTED, one transaction
 *     sell: pull the tokens (exactly once per order)  ─▶ sell on the venue + payout + EXECUTED, one transaction
 *   authorization unusable (spent, cancelled, nonce used) ─▶ FAILED with its reason, nothing booked
 *   refused after the money moved (the price moved past the bound between the check and the trade)
 *                         ─▶ FAILED; the USDC paid back (refund payout) or the tokens sent back
 *   collect or pull not mined yet ─▶ stays EXECUTING; `resumeExecuting` takes it up again
 */
import { DomainError, HeldAuthorizationInvalid, TokenAuthorizationInvalid } from '../../domain/errors.js';
import { nextCrossed, type Order, type SpotPrice } from '../../domain/order.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { PullPending } from '../custody/token-pull.js';
import type { AppDeps } from '../deps.js';
import { buyWithCollected, planCollectedBuy, refundCollected } from '../held/buy-with-collected.js';
import { collectHeld, CollectPending } from '../held/collect.js';
import type { AppMetrics } from '../metrics.js';
import { loadToken } from '../trading/load-token.js';
import { venueFor } from '../trading/venues/venue-for.js';
import { sellToken } from '../use-cases/sell-token.js';
import { orderAssetAddress } from './place-order.js';
import { moveOrder as move } from './move-order.js';
import { spotOf } from './order-view.js';

export type ExecutionOutcome = 'executed' | 'failed' | 'missed' | 'pending' | 'lost';

type OrderDeps = AppDeps & { metrics?: AppMetrics };

/** The key of an order's one collect or pull, and of its pool swap. */
export const orderKey = (o: Pick<Order, 'orderId'>): string => `order:${o.orderId}`;

/** Another process moved the order first: this one's transaction rolls back. */
class OrderMoved extends Error {}

/**
 * Executes the OPEN orders of `tokenId` that the price crosses, one at a time, best first; an
 * order whose bound is missed stays OPEN and is passed over until the price changes again.
 * Returns how many executed.
 */
export async function executeCrossed(deps: OrderDeps, tokenId: string): Promise<number> {
  const passed = new Set<string>();
  let executed = 0;
  for (;;) {
    // Most commits touch tokens without orders: one read, and nothing else.
    const open = (await deps.uow.run((s) => s.orders.ofToken(tokenId, 'OPEN'))).filter((o) => !passed.has(o.orderId));
    if (open.length === 0) return executed;
    const spot = await spotOf(deps, await deps.uow.run((s) => loadToken(s, tokenId)));
    if (!spot) return executed;
    const order = nextCrossed(open, spot, deps.clock.now());
    if (!order) return executed;
    passed.add(order.orderId);
    const outcome = await executeOrder(deps, order, spot);
    if (outcome === 'executed') executed += 1;
  }
}

/** One crossed OPEN order: its bound checked, claimed (OPEN → EXECUTING), then carried out. */
export async function executeOrder(deps: OrderDeps, order: Order, _spot: SpotPrice): Promise<ExecutionOutcome> {
  try {
    await checkBound(deps, order);
  } catch (e) {
    if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
    return counted(deps, order, 'missed'); // the bound (or the venue) refuses now: the order waits
  }
  const claimed = await deps.uow.run((s) => move(s, order, 'OPEN', 'EXECUTING', deps.clock.now()));
  if (!claimed) return 'lost';
  return carryOut(deps, claimed);
}

/** The orders left EXECUTING (a crash, a collect not mined yet): carried on from where they stopped. */
export async function resumeExecuting(deps: OrderDeps, limit = 20): Promise<number> {
  const stuck = await deps.uow.run((s) => s.orders.executing(limit));
  let done = 0;
  for (const order of stuck) if ((await carryOut(deps, order)) !== 'pending') done += 1;
  return done;
}

/** OPEN orders past their expiresAt: EXPIRED, with their event. Returns how many. */
export async function expireOrders(deps: OrderDeps, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.uow.run((s) => s.orders.expired(now, limit));
  let expired = 0;
  for (const order of due) if (await deps.uow.transaction((s) => move(s, order, 'OPEN', 'EXPIRED', now, { reason: 'expired' }))) expired += 1;
  return expired;
}

async function checkBound(deps: OrderDeps, order: Order): Promise<void> {
  if (order.kind === 'limit_buy') {
    await planCollectedBuy(deps, { tokenId: order.tokenId, network: order.network, usdAmount: order.usdAmount!, minTokensOut: order.minTokensOut ?? undefined });
    return;
  }
  const token = await deps.uow.run((s) => loadToken(s, order.tokenId));
  await venueFor(deps, token, 'sell').checkSell(token, order.tokens!, order.minUsdOut ?? undefined);
}

async function carryOut(deps: OrderDeps, order: Order): Promise<ExecutionOutcome> {
  try {
    const tradeId = order.kind === 'limit_buy' ? await buy(deps, order) : await sell(deps, order);
    if (tradeId === null) return 'lost';
    return counted(deps, order, 'executed');
  } catch (e) {
    if (e instanceof CollectPending || e instanceof PullPending) return counted(deps, order, 'pending');
    if (e instanceof OrderMoved) return 'lost';
    if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
    await fail(deps, order, e);
    return counted(deps, order, 'failed');
  }
}

/** The order's buy, paid by its collected USDC; the trade and EXECUTED commit together. Null: another process booked it. */
async function buy(deps: OrderDeps, order: Order): Promise<string | null> {
  const key = orderKey(order);
  await collectHeld(deps, key, order.network, orderAssetAddress(order), order.authorization, order.tokenId);
  try {
    const result = await buyWithCollected(deps, {
      key,
      tokenId: order.tokenId,
      network: order.network,
      buyer: order.wallet,
      usdAmount: order.usdAmount!,
      minTokensOut: order.minTokensOut ?? undefined,
      onBooked: (stores, r) => executed(deps, stores, order, r.trade.tradeId),
    });
    return result.trade.tradeId;
  } catch (e) {
    if (e instanceof DomainError && !(e instanceof HeldAuthorizationInvalid) && e.code !== 'INTERNAL_ERROR') throw new CollectedButRefused(e);
    throw e;
  }
}

/** The order's sell, as token_sell sells (pull, venue, USDC payout; tokens sent back on a refusal after the pull). */
async function sell(deps: OrderDeps, order: Order): Promise<string | null> {
  const result = await sellToken(
    deps,
    { tokenId: order.tokenId, tokens: order.tokens!, minUsdOut: order.minUsdOut ?? undefined, authorization: order.authorization, seller: order.wallet, network: order.network, referrer: null },
    { key: orderKey(order), onApplied: (stores, r) => executed(deps, stores, order, r.trade.tradeId) },
  );
  return result.trade.tradeId;
}

async function executed(deps: OrderDeps, stores: Stores, order: Order, tradeId: string): Promise<void> {
  if (!(await move(stores, order, 'EXECUTING', 'EXECUTED', deps.clock.now(), { tradeId }))) throw new OrderMoved();
}

/** A buy refused after its USDC was collected: the USDC goes back with the order's FAILED. */
class CollectedButRefused extends DomainError {
  readonly code: string;
  constructor(refused: DomainError) {
    super(refused.message, refused.details, { cause: refused });
    this.code = refused.code;
  }
}

/** FAILED with the refusal's reason; a buy refused after its collect pays the USDC back in the same transaction. */
async function fail(deps: OrderDeps, order: Order, e: DomainError): Promise<void> {
  const reason = e instanceof HeldAuthorizationInvalid || e instanceof TokenAuthorizationInvalid ? `${String(e.details?.['reason'])}${e.details?.['why'] ? `:${String(e.details['why'])}` : ''}` : e.code;
  await deps.uow.transaction(async (stores) => {
    const failed = await move(stores, order, 'EXECUTING', 'FAILED', deps.clock.now(), { reason: e instanceof CollectedButRefused ? `refunded:${reason}` : reason });
    if (!failed || !(e instanceof CollectedButRefused)) return;
    await refundCollected(deps, stores, { network: order.network, wallet: order.wallet, asset: order.asset ?? 'USDC', amount: order.usdAmount!, sourceId: orderKey(order) });
  });
}

function counted(deps: OrderDeps, order: Order, outcome: ExecutionOutcome): ExecutionOutcome {
  deps.metrics?.increment('order_executions_total', { kind: order.kind, outcome });
  return outcome;
}
