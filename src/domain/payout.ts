/**
 * Payouts: USDC the service owes a wallet (sell proceeds or a refund), sent from the treasury.
 *
 *   PENDING → SENT → CONFIRMED
 *      │        └──→ PENDING (the transaction was dropped: send again, same payout)
 *      └──→ FAILED (retries exhausted; an operator may move it back to PENDING)
 */
import { InvariantViolation } from './errors.js';
import type { Network } from './network.js';

export type PayoutState = 'PENDING' | 'SENT' | 'CONFIRMED' | 'FAILED';
export type PayoutReason = 'sell' | 'refund';

export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutState, readonly PayoutState[]>> = {
  PENDING: ['SENT', 'FAILED'],
  SENT: ['CONFIRMED', 'PENDING', 'FAILED'],
  CONFIRMED: [],
  FAILED: ['PENDING'],
};

export interface Payout {
  readonly payoutId: string;
  readonly network: Network;
  readonly wallet: string;
  readonly amount: bigint;
  readonly reason: PayoutReason;
  readonly state: PayoutState;
  readonly txHash: string | null;
  /** The signed transfer, recorded before it is broadcast so a crash can never send a second one. */
  readonly rawTx: string | null;
  /** The payment or trade this payout settles; unique, so a payout is never queued twice. */
  readonly sourceId: string;
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function newPayout(args: {
  payoutId: string;
  network: Network;
  wallet: string;
  amount: bigint;
  reason: PayoutReason;
  sourceId: string;
  now: Date;
}): Payout {
  if (args.amount <= 0n) throw new InvariantViolation('a payout must be positive');
  const { now, ...rest } = args;
  return {
    ...rest,
    state: 'PENDING',
    txHash: null,
    rawTx: null,
    attempts: 0,
    nextAttemptAt: now,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
}

export function transitionPayout(
  p: Payout,
  to: PayoutState,
  now: Date,
  patch: Partial<Pick<Payout, 'txHash' | 'rawTx' | 'attempts' | 'nextAttemptAt' | 'lastError'>> = {},
): Payout {
  if (!PAYOUT_TRANSITIONS[p.state].includes(to)) {
    throw new InvariantViolation(`illegal payout transition ${p.state} → ${to}`);
  }
  return { ...p, ...patch, state: to, updatedAt: now };
}
