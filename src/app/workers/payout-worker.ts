/**
 * Sends queued payouts (sell proceeds, refunds) through the outbox engine (outbox-worker.ts):
 * a USDC transfer from the treasury per payout, with `payout.sent`, `payout.confirmed` and
 * `payout.failed` events written in the transaction of each move.
 */
import type { Payout } from '../../domain/payout.js';
import type { PayoutSender } from '../../ports/payout-sender.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { payoutView } from '../kit/views.js';
import { OutboxWorker, outboxStoreOf, type OutboxWorkerDeps } from './outbox-worker.js';

export type PayoutWorkerDeps = Omit<OutboxWorkerDeps<Payout>, 'kind' | 'sender'> & { sender: PayoutSender };

const event = (type: 'payout.sent' | 'payout.confirmed' | 'payout.failed') => async (stores: Stores, payout: Payout, now: Date) => {
  await stores.events.append({ type, network: payout.network, tokenId: null, data: { payout: payoutView(payout) }, createdAt: now });
};

export class PayoutWorker extends OutboxWorker<Payout> {
  constructor(deps: PayoutWorkerDeps) {
    super({
      ...deps,
      kind: {
        ...outboxStoreOf<Payout>('payout', (p) => p.payoutId, (s) => s.payouts),
        prepare: (p) => deps.sender.prepare(p),
        onSent: event('payout.sent'),
        onConfirmed: event('payout.confirmed'),
        onFailed: event('payout.failed'),
      },
    });
  }
}
