/**
 * The free order operations (docs/api.md "Orders"): one order, a wallet's orders, a token's book,
 * and cancelling — free for the order's wallet, proven with Sign-In-With-X or by signing the
 * message `cancelMessage(orderId)` (EIP-191 personal_sign). A cancelled order is never executed:
 * OPEN → CANCELLED is the same compare-and-set the executor's OPEN → EXECUTING races against.
 */
import { NotFound, OrderNotOpen, OrderWalletNotProven } from '../../domain/errors.js';
import type { Order, OrderState } from '../../domain/order.js';
import type { AppDeps } from '../kit/deps.js';
import { loadToken } from '../trading/index.js';
import { moveOrder } from './move-order.js';
import { orderBook, orderView, spotOf } from './order-view.js';

/** What a wallet signs to cancel an order without Sign-In-With-X. */
export const cancelMessage = (orderId: string): string => `Cancel order ${orderId}`;

async function orderOf(deps: Pick<AppDeps, 'uow'>, orderId: string): Promise<Order> {
  const order = await deps.uow.run((s) => s.orders.get(orderId));
  if (!order) throw new NotFound(`No order ${orderId}.`, { orderId });
  return order;
}

export async function getOrder(deps: Pick<AppDeps, 'uow'>, orderId: string) {
  return orderView(await orderOf(deps, orderId));
}

export async function listOrders(deps: Pick<AppDeps, 'uow'>, q: { wallet: string; state?: OrderState | undefined; limit: number }) {
  const orders = await deps.uow.run((s) => s.orders.byWallet(q.wallet, q.state ? 500 : q.limit));
  return { wallet: q.wallet, orders: orders.filter((o) => !q.state || o.state === q.state).slice(0, q.limit).map(orderView) };
}

export async function getOrderBook(deps: Pick<AppDeps, 'uow' | 'dex'>, tokenId: string) {
  const token = await deps.uow.run((s) => loadToken(s, tokenId));
  const open = await deps.uow.run((s) => s.orders.ofToken(tokenId, 'OPEN'));
  return orderBook(tokenId, open, await spotOf(deps, token).catch(() => null));
}

/** The wallet that asks: the proven one, or the signer of the cancel message. */
async function askingWallet(deps: Pick<AppDeps, 'signatures'>, orderId: string, proof: { provenWallet?: string | undefined; signature?: string | undefined }): Promise<string> {
  if (proof.signature) {
    const signer = await deps.signatures.signerOf(cancelMessage(orderId), proof.signature);
    if (!signer) throw new OrderWalletNotProven('The signature is not a signature of the cancel message.', { message: cancelMessage(orderId) });
    return signer;
  }
  if (proof.provenWallet) return proof.provenWallet;
  throw new OrderWalletNotProven(`Prove the order's wallet: a SIGN-IN-WITH-X header, or \`signature\`: the wallet's personal_sign of "${cancelMessage(orderId)}".`, {
    message: cancelMessage(orderId),
  });
}

export async function cancelOrder(deps: Pick<AppDeps, 'uow' | 'clock' | 'signatures'>, q: { orderId: string; signature?: string | undefined; provenWallet?: string | undefined }) {
  const order = await orderOf(deps, q.orderId);
  const wallet = await askingWallet(deps, q.orderId, q);
  if (wallet.toLowerCase() !== order.wallet.toLowerCase()) throw new OrderWalletNotProven(`Only the order's wallet, ${order.wallet}, may cancel it; ${wallet} was proven.`);
  if (order.state === 'CANCELLED') return orderView(order); // cancelling twice answers the same
  if (order.state !== 'OPEN') throw new OrderNotOpen(order.orderId, order.state);
  const now = deps.clock.now();
  const cancelled = await deps.uow.transaction((s) => moveOrder(s, order, 'OPEN', 'CANCELLED', now, { reason: 'cancelled_by_wallet' }));
  if (cancelled) return orderView(cancelled);
  const current = await orderOf(deps, q.orderId); // the executor (or another cancel) moved it first
  if (current.state === 'CANCELLED') return orderView(current);
  throw new OrderNotOpen(current.orderId, current.state);
}
