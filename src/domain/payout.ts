/**
 * Payouts: stablecoin the service owes a wallet (sell proceeds or a refund), sent from the
 * treasury through the outbox (src/domain/outbox.ts). A refund pays back the asset that was paid
 * (the treasury received it); sell proceeds are USDC, the curve's own asset, whatever asset paid
 * the sell's fee (decision 0021) — so the treasury never owes an asset it was not paid in.
 */
import { InvariantViolation } from './errors.js';
import type { Network, PaymentAsset } from './network.js';
import { newOutboxFields, transitionOutbox, type OutboxFields, type OutboxPatch, type OutboxState } from './outbox.js';

export type PayoutState = OutboxState;
/** Sell proceeds, a refund, or the fee shares earned by a creator or a referrer (always USDC). */
export type PayoutReason = 'sell' | 'refund' | 'creator_fee' | 'cashback' | 'referral_fee';

export interface Payout extends OutboxFields {
  readonly payoutId: string;
  readonly wallet: string;
  /** The stablecoin paid out: USDC for sell proceeds; for a refund, the one the wallet paid with. */
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
  if (args.reason !== 'refund' && (args.asset ?? 'USDC') !== 'USDC') throw new InvariantViolation(`${args.reason} payouts are paid in USDC`);
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
