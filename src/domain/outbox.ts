/**
 * The life of a transaction the service owes the chain (a payout, a token deployment, a
 * delivery): recorded in the database in the same transaction as what owes it, then sent by a
 * worker — signed, recorded, broadcast, followed.
 *
 *   PENDING → SENT → CONFIRMED
 *      │ │      └──→ PENDING (dropped or reverted: send again, same item, fresh transaction)
 *      │ └──→ CONFIRMED (what it would do is already done on chain: nothing to send)
 *      └──→ FAILED (retries exhausted; an operator may move it back to PENDING)
 */
import { InvariantViolation } from './errors.js';
import type { Network } from './network.js';

export type OutboxState = 'PENDING' | 'SENT' | 'CONFIRMED' | 'FAILED';

export const OUTBOX_TRANSITIONS: Readonly<Record<OutboxState, readonly OutboxState[]>> = {
  PENDING: ['SENT', 'FAILED', 'CONFIRMED'],
  SENT: ['CONFIRMED', 'PENDING', 'FAILED'],
  CONFIRMED: [],
  FAILED: ['PENDING'],
};

/** What every outbox item carries to be sent exactly once. */
export interface OutboxFields {
  readonly network: Network;
  readonly state: OutboxState;
  readonly txHash: string | null;
  /** The signed transaction, recorded before it is broadcast so a crash can never send a second one. */
  readonly rawTx: string | null;
  /** What owes this item (a trade, a payment, a token); unique per kind, so it is never queued twice. */
  readonly sourceId: string;
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type OutboxPatch = Partial<Pick<OutboxFields, 'txHash' | 'rawTx' | 'attempts' | 'nextAttemptAt' | 'lastError'>>;

export function transitionOutbox<T extends OutboxFields>(item: T, to: OutboxState, now: Date, patch: OutboxPatch = {}): T {
  if (!OUTBOX_TRANSITIONS[item.state].includes(to)) {
    throw new InvariantViolation(`illegal outbox transition ${item.state} → ${to}`);
  }
  return { ...item, ...patch, state: to, updatedAt: now };
}

/** The fields of a fresh item, due now. */
export function newOutboxFields(network: Network, sourceId: string, now: Date): OutboxFields {
  return {
    network,
    state: 'PENDING',
    txHash: null,
    rawTx: null,
    sourceId,
    attempts: 0,
    nextAttemptAt: now,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
}
