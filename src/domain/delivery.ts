/**
 * Deliveries: tokens a buyer bought, owed from custody to its wallet on chain (docs/api.md "Tokens on chain").
 * Queued in the trade's own transaction; sent through the outbox once the token is deployed —
 * alone, or with the others ready at the same moment in one batch (delivery-batch.ts).
 */
import { InvariantViolation } from './errors.js';
import type { Network } from './network.js';
import { newOutboxFields, type OutboxFields } from './outbox.js';

export interface Delivery extends OutboxFields {
  readonly deliveryId: string;
  readonly tokenId: string;
  readonly wallet: string;
  /** Token units (1e-18). */
  readonly amount: bigint;
  /** The batch whose transaction carries it while it is SENT in one (delivery-batch.ts); null otherwise. */
  readonly batchId: string | null;
}

export function newDelivery(args: {
  deliveryId: string;
  network: Network;
  tokenId: string;
  wallet: string;
  amount: bigint;
  /** The trade that owes it. */
  sourceId: string;
  now: Date;
}): Delivery {
  if (args.amount <= 0n) throw new InvariantViolation('a delivery must be positive');
  return {
    ...newOutboxFields(args.network, args.sourceId, args.now),
    deliveryId: args.deliveryId,
    tokenId: args.tokenId,
    wallet: args.wallet,
    amount: args.amount,
    batchId: null,
  };
}
