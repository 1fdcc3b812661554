/**
 * A token that can never be deployed at the address announced for it (docs/decisions/0032): the
 * LaunchFactory, custody or LaunchToken bytecode changed after it was created, so no deployment
 * from this configuration can ever fill that address. Its deployment is FAILED (deployment
 * worker), and here, in the same transaction: every delivery still owed for it is FAILED, and
 * every payment applied for it — its creation and every buy — is paid back in full, in the asset
 * that paid, by one refund payout each (keyed by the payment, so never twice). The payments stay
 * APPLIED: the operation happened; the refund undoes what it cost.
 */
import type { Payment } from '../../domain/payment.js';
import { transitionOutbox } from '../../domain/outbox.js';
import { newPayout } from '../../domain/payout.js';
import type { Token } from '../../domain/token.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { deliveryView } from '../kit/views.js';

const NEVER = 'the token can never be deployed at its address';

export async function refundUndeliverable(stores: Stores, token: Token, deps: { ids?: IdGenerator }, now: Date): Promise<{ refunded: number; failedDeliveries: number }> {
  const paymentIds = new Set<string>();
  const [created] = await stores.events.readAfter(0, { tokenId: token.tokenId }, 1);
  const createdBy = (created?.data as { paymentId?: string | null } | undefined)?.paymentId;
  if (created?.type === 'token.created' && createdBy) paymentIds.add(createdBy);
  let failedDeliveries = 0;
  for (let cursor: string | undefined, more = true; more; ) {
    const page = await stores.trades.listByToken(token.tokenId, { limit: 200, cursor });
    for (const trade of page.items) {
      if (trade.paymentId) paymentIds.add(trade.paymentId);
      const delivery = trade.side === 'buy' ? await stores.deliveries.findBySource(trade.tradeId) : null;
      if (delivery?.state !== 'PENDING') continue;
      const failed = transitionOutbox(delivery, 'FAILED', now, { lastError: NEVER });
      if (!(await stores.deliveries.update(failed, 'PENDING'))) continue;
      failedDeliveries += 1;
      await stores.events.append({ type: 'delivery.failed', network: failed.network, tokenId: token.tokenId, data: { delivery: deliveryView(failed) }, createdAt: now });
    }
    cursor = page.nextCursor ?? undefined;
    more = page.nextCursor !== null;
  }
  let refunded = 0;
  for (const paymentId of paymentIds) {
    const payment: Payment | null = await stores.payments.get(paymentId);
    if (!payment || payment.state !== 'APPLIED') continue; // refunded already, or never charged
    await stores.payouts.enqueue(
      newPayout({
        payoutId: deps.ids?.next('pout') ?? `pout_undeliverable_${paymentId}`,
        network: payment.network,
        wallet: payment.payer,
        asset: payment.asset,
        amount: payment.amount,
        reason: 'refund',
        sourceId: `undeliverable:${paymentId}`,
        now,
      }),
    );
    refunded += 1;
  }
  return { refunded, failedDeliveries };
}
