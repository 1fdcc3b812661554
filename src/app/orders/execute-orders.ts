/**
 * Executing orders (docs/api.md "Orders"): after a token's price changes, the OPEN orders it
 * crosses execute one at a time in price-then-time priority (domain/order.ts), each re-reading the
 * price its predecessor left. Nothing here runs inside a paid trade's transaction: the executor
 * (workers/order-executor.ts) is woken after commits.
 *
 *   price crossed ─▶ a launch fee above the base fee, or the bound missed now? ── yes ──▶ left OPEN ("missed")
 *                         │ no
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
import { feeOn } from '../../domain/fees.js';
import { nextCrossed, sellOrderBound, tokensAtTrigger, type Order, type SpotPrice } from '../../domain/order.js';
import { feeBpsOf, type Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { PullPending } from '../custody/index.js';
import type { AppDeps } from '../kit/deps.js';
import { CollectPending, buyWithCollected, collectHeld, planCollectedBuy, refundCollected } from '../held/index.js';
import type { AppMetrics } from '../kit/metrics.js';
import { InterruptedInCustody, RefusedInCustody } from '../kit/paid.js';
import { loadToken, queueTokenReturn, sellToken, venueFor } from '../trading/index.js';
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
 * How much older than the collect's or pull's wait an EXECUTING order must be before a resume
 * takes it up: a younger one may be in another process's hands, still waiting on the chain.
 */
export const RESUME_MARGIN_MS = 10_000;

/** The orders this process (one `deps`: the executor's) is carrying out now: a resume never runs a second copy of one. */
const inFlight = new WeakMap<object, Set<string>>();

async function exclusively(deps: OrderDeps, order: Order, work: () => Promise<ExecutionOutcome>): Promise<ExecutionOutcome> {
  let mine = inFlight.get(deps);
  if (!mine) inFlight.set(deps, (mine = new Set()));
  if (mine.has(order.orderId)) return 'lost';
  mine.add(order.orderId);
  try {
    return await work();
  } finally {
    mine.delete(order.orderId);
  }
}

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

/**
 * One crossed OPEN order: its bound checked, claimed (OPEN → EXECUTING), then carried out. While
 * a launch fee is above the token's base fee an order waits: orders execute at the usual fee.
 */
export async function executeOrder(deps: OrderDeps, order: Order, _spot: SpotPrice): Promise<ExecutionOutcome> {
  try {
    const token = await deps.uow.run((s) => loadToken(s, order.tokenId));
    if (feeBpsOf(token, deps.clock.now()) > token.params.feeBps) return counted(deps, order, 'missed');
    await checkBound(deps, order, token);
  } catch (e) {
    if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
    return counted(deps, order, 'missed'); // the bound (or the venue) refuses now: the order waits
  }
  const claimed = await deps.uow.run((s) => move(s, order, 'OPEN', 'EXECUTING', deps.clock.now()));
  if (!claimed) return 'lost';
  return exclusively(deps, claimed, () => carryOut(deps, claimed));
}

/**
 * The orders left EXECUTING (a crash, a collect not mined yet): carried on from where they
 * stopped. Only those untouched for longer than the collect's or pull's wait: a younger one may
 * be another process's, still in its hands; and never one this process is carrying out now.
 */
export async function resumeExecuting(deps: OrderDeps, limit = 20): Promise<number> {
  const settled = deps.clock.now().getTime() - deps.settings.pullWaitMs - RESUME_MARGIN_MS;
  const stuck = (await deps.uow.run((s) => s.orders.executing(limit))).filter((o) => o.updatedAt.getTime() < settled);
  let done = 0;
  for (const order of stuck) {
    // One order the chain cannot carry on now (an RPC down) does not hold up the others.
    const outcome = await exclusively(deps, order, () => carryOut(deps, order)).catch((e: unknown) => {
      deps.logger?.warn('an executing order could not be carried on; will retry', { orderId: order.orderId, error: (e as Error).message });
      return 'pending' as const;
    });
    if (outcome !== 'pending' && outcome !== 'lost') done += 1;
  }
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

async function checkBound(deps: OrderDeps, order: Order, token: Token): Promise<void> {
  if (order.kind === 'limit_buy') {
    await planCollectedBuy(deps, { tokenId: order.tokenId, network: order.network, usdAmount: order.usdAmount!, minTokensOut: limitBound(order, token) });
    return;
  }
  await venueFor(deps, token, 'sell').checkSell(token, order.tokens!, sellOrderBound(order, token.params.feeBps));
}

/**
 * A limit buy's bound at execution (docs/api.md "Orders"): it never pays more per token than its
 * trigger — at least the tokens its USD less the token's base fee (the fee orders execute at)
 * buys at exactly the trigger, or its own minTokensOut when higher. A price that moved past the
 * trigger (a resume, a price that moved between the crossing and the buy) misses it: left OPEN
 * before the collect, refunded after.
 */
function limitBound(order: Order, token: Token): bigint {
  const usd = order.usdAmount!;
  const atTrigger = tokensAtTrigger(order.triggerPrice, usd - feeOn(usd, token.params.feeBps));
  return order.minTokensOut !== null && order.minTokensOut > atTrigger ? order.minTokensOut : atTrigger;
}

async function carryOut(deps: OrderDeps, order: Order): Promise<ExecutionOutcome> {
  try {
    const tradeId = order.kind === 'limit_buy' ? await buy(deps, order) : await sell(deps, order);
    if (tradeId === null) return 'lost';
    return counted(deps, order, 'executed');
  } catch (e) {
    // Not mined yet, or an outage with the money in custody: carried on by a later pass, never given back now.
    if (e instanceof CollectPending || e instanceof PullPending || e instanceof InterruptedInCustody) return counted(deps, order, 'pending');
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
      minTokensOut: limitBound(order, await deps.uow.run((s) => loadToken(s, order.tokenId))),
      onBooked: (stores, r) => executed(deps, stores, order, r.trade.tradeId),
    });
    return result.trade.tradeId;
  } catch (e) {
    if (e instanceof DomainError && !(e instanceof HeldAuthorizationInvalid) && e.code !== 'INTERNAL_ERROR') throw new RefusedInCustody(e, 'usdc');
    throw e;
  }
}

/**
 * The order's sell, as token_sell sells (pull, venue, USDC payout), bounded by its trigger
 * (sellOrderBound: the pool's swap gets its amountOutMin from it, not from the pool's price then,
 * which a sandwich may have moved); a refusal after the pull sends the tokens back with the FAILED.
 */
async function sell(deps: OrderDeps, order: Order): Promise<string | null> {
  const token = await deps.uow.run((s) => loadToken(s, order.tokenId));
  const minUsdOut = sellOrderBound(order, token.params.feeBps);
  const result = await sellToken(
    deps,
    { tokenId: order.tokenId, tokens: order.tokens!, minUsdOut, authorization: order.authorization, seller: order.wallet, network: order.network, referrer: null },
    { key: orderKey(order), onApplied: (stores, r) => executed(deps, stores, order, r.trade.tradeId) },
  );
  return result.trade.tradeId;
}

async function executed(deps: OrderDeps, stores: Stores, order: Order, tradeId: string): Promise<void> {
  if (!(await move(stores, order, 'EXECUTING', 'EXECUTED', deps.clock.now(), { tradeId }))) throw new OrderMoved();
}

/**
 * FAILED with the refusal's reason; an order refused after custody took its money (a buy's USDC
 * collected, a sell's tokens pulled) gives it back in the same transaction, so only the copy
 * whose compare-and-set wins gives anything back.
 */
async function fail(deps: OrderDeps, order: Order, e: DomainError): Promise<void> {
  const reason = e instanceof HeldAuthorizationInvalid || e instanceof TokenAuthorizationInvalid ? `${String(e.details?.['reason'])}${e.details?.['why'] ? `:${String(e.details['why'])}` : ''}` : e.code;
  await deps.uow.transaction(async (stores) => {
    const failed = await move(stores, order, 'EXECUTING', 'FAILED', deps.clock.now(), { reason: e instanceof RefusedInCustody ? `refunded:${reason}` : reason });
    if (!failed || !(e instanceof RefusedInCustody)) return;
    if (e.taken === 'tokens') await queueTokenReturn(deps, stores, { network: order.network, tokenId: order.tokenId, seller: order.wallet, tokens: order.tokens! }, orderKey(order));
    else await refundCollected(deps, stores, { network: order.network, wallet: order.wallet, asset: order.asset ?? 'USDC', amount: order.usdAmount!, sourceId: orderKey(order) });
  });
}

function counted(deps: OrderDeps, order: Order, outcome: ExecutionOutcome): ExecutionOutcome {
  deps.metrics?.increment('order_executions_total', { kind: order.kind, outcome });
  return outcome;
}
