/**
 * Payouts: stablecoin the service owes a wallet (sell proceeds or a refund), sent from the
 * treasury through the outbox (src/domain/outbox.ts), in the asset that paid (SPEC §15).
 */
import { InvariantViolation } from './errors.js';
import type { Network, PaymentAsset } from './network.js';
import { newOutboxFields, OUTBOX_TRANSITIONS, transitionOutbox, type OutboxFields, type OutboxPatch, type OutboxState } from './outbox.js';

export type PayoutState = OutboxState;
export type PayoutReason = 'sell' | 'refund';

export const PAYOUT_TRANSITIONS = OUTBOX_TRANSITIONS;

export interface Payout extends OutboxFields {
  readonly payoutId: string;
  readonly wallet: string;
  /** The stablecoin paid out: the one the wallet paid with. */
  readonly asset: PaymentAsset;
  /** Smallest units of `asset`. */
  readonly amount: bigint;
  readonly reason: PayoutReason;
}

export function newPayout(args: {
  payoutId: string;
  network: Network;
  wallet: string;
  /** Defaults to USDC. */
  asset?: PaymentAsset;
  amount: bigint;
  reason: PayoutReason;
  sourceId: string;
  now: Date;
}): Payout {
  if (args.amount <= 0n) throw new InvariantViolation('a payout must be positive');
  return {
    ...newOutboxFields(args.network, args.sourceId, args.now),
    payoutId: args.payoutId,
    wallet: args.wallet,
    asset: args.asset ?? 'USDC',
    amount: args.amount,
    reason: args.reason,
  };
}

export function transitionPayout(p: Payout, to: PayoutState, now: Date, patch: OutboxPatch = {}): Payout {
  return transitionOutbox(p, to, now, patch);
}
