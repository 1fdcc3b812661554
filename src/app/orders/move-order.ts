import { transitionOrder, type Order, type OrderState } from '../../domain/order.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { orderView } from './order-view.js';

const EVENT = { EXECUTED: 'order.executed', FAILED: 'order.failed', CANCELLED: 'order.cancelled', EXPIRED: 'order.expired' } as const;

/**
 * Moves `order` from `from` to `to` by compare-and-set, in the caller's transaction, with the
 * event of the state it reaches (none for EXECUTING: a step, not an outcome). Null: another
 * process (or the wallet) moved it first, and nothing was written.
 */
export async function moveOrder(
  stores: Stores,
  order: Order,
  from: OrderState,
  to: OrderState,
  now: Date,
  patch: { reason?: string | null; tradeId?: string | null } = {},
): Promise<Order | null> {
  const next = transitionOrder(order, to, now, patch);
  if (!(await stores.orders.transition(next, from))) return null;
  if (to !== 'EXECUTING' && to !== 'OPEN') {
    await stores.events.append({ type: EVENT[to], network: next.network, tokenId: next.tokenId, data: { order: orderView(next) }, createdAt: now });
  }
  return next;
}
