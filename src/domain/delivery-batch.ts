/**
 * A batch of deliveries (delivery.ts) sent as one custody transaction (docs/decisions/0035): the
 * deliveries ready at one moment, all or none — the transaction makes every transfer, or reverts
 * and makes none.
 *
 *   (deliveries PENDING) ──sign; record the batch and move its deliveries to SENT in one
 *                          database transaction; then broadcast──▶ SENT ──mined──▶ CONFIRMED
 *                                                                   │      (its deliveries CONFIRMED)
 *                                                                   ▼ reverted, or dropped
 *                                      REVERTED / DROPPED (its deliveries PENDING again, each
 *                                      sent alone from then on: a failed batch is split)
 *
 * A batch is never signed again: what it carried goes back to its deliveries, whose own outbox
 * rules (attempts, backoff, FAILED) take over.
 */
import { InvariantViolation } from './errors.js';
import type { Network } from './network.js';

export type DeliveryBatchState = 'SENT' | 'CONFIRMED' | 'REVERTED' | 'DROPPED';

export const DELIVERY_BATCH_TRANSITIONS: Readonly<Record<DeliveryBatchState, readonly DeliveryBatchState[]>> = {
  SENT: ['CONFIRMED', 'REVERTED', 'DROPPED'],
  CONFIRMED: [],
  REVERTED: [],
  DROPPED: [],
};

export interface DeliveryBatch {
  readonly batchId: string;
  readonly network: Network;
  readonly state: DeliveryBatchState;
  /** The signed transaction, recorded before it is broadcast (with the deliveries it carries). */
  readonly txHash: string;
  readonly rawTx: string;
  /** How many deliveries it carries. */
  readonly size: number;
  /** When its status is read next. */
  readonly nextAttemptAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function newDeliveryBatch(args: { batchId: string; network: Network; txHash: string; rawTx: string; size: number; now: Date; nextAttemptAt: Date }): DeliveryBatch {
  if (args.size < 2) throw new InvariantViolation('a batch carries at least two deliveries');
  return {
    batchId: args.batchId,
    network: args.network,
    state: 'SENT',
    txHash: args.txHash,
    rawTx: args.rawTx,
    size: args.size,
    nextAttemptAt: args.nextAttemptAt,
    createdAt: args.now,
    updatedAt: args.now,
  };
}

export function transitionDeliveryBatch(batch: DeliveryBatch, to: DeliveryBatchState, now: Date, nextAttemptAt = batch.nextAttemptAt): DeliveryBatch {
  if (batch.state !== to && !DELIVERY_BATCH_TRANSITIONS[batch.state].includes(to)) {
    throw new InvariantViolation(`illegal delivery batch transition ${batch.state} → ${to}`);
  }
  return { ...batch, state: to, nextAttemptAt, updatedAt: now };
}
