/**
 * The x402 payment lifecycle of SPEC §8 as an explicit transition table.
 *
 *   VERIFIED → SETTLING → SETTLED → APPLIED
 *       │          │          └────→ REFUNDED (settled, but the operation could not be applied)
 *       │          └──→ FAILED (settlement failed: nothing charged)
 *       └──→ REJECTED (a rule failed after verification: never settled, nothing charged)
 */
import { InvariantViolation } from './errors.js';
import type { Network } from './network.js';

export type PaymentState = 'VERIFIED' | 'SETTLING' | 'SETTLED' | 'APPLIED' | 'REFUNDED' | 'REJECTED' | 'FAILED';

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentState, readonly PaymentState[]>> = {
  VERIFIED: ['SETTLING', 'REJECTED'],
  SETTLING: ['SETTLED', 'FAILED'],
  SETTLED: ['APPLIED', 'REFUNDED'],
  APPLIED: [],
  REFUNDED: [],
  REJECTED: [],
  FAILED: [],
};

export const TERMINAL_PAYMENT_STATES: readonly PaymentState[] = ['APPLIED', 'REFUNDED', 'REJECTED', 'FAILED'];

export interface Payment {
  readonly paymentId: string;
  readonly network: Network;
  readonly payer: string;
  /** EIP-3009 authorization nonce (0x + 64 hex). */
  readonly nonce: string;
  readonly amount: bigint;
  /** The operation and body the payment is bound to, e.g. "POST /entrypoints/token_sell". */
  readonly resource: string;
  /** sha256 of the canonical request (resource + body): the same signature for another request is refused. */
  readonly requestHash: string;
  /** sha256 of the EIP-3009 signature: a replay must present the very same signed authorization. */
  readonly signatureHash: string;
  /** The request's input as received, so a reconciler can apply a payment whose request died. */
  readonly input: unknown;
  readonly state: PaymentState;
  readonly settlementTx: string | null;
  /** Unix seconds after which the authorization can no longer be used on chain. */
  readonly validBefore: bigint;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export class IllegalPaymentTransition extends InvariantViolation {
  constructor(from: PaymentState, to: PaymentState) {
    super(`illegal payment transition ${from} → ${to}`);
  }
}

export function canTransition(from: PaymentState, to: PaymentState): boolean {
  return PAYMENT_TRANSITIONS[from].includes(to);
}

export function transitionPayment(
  p: Payment,
  to: PaymentState,
  now: Date,
  patch: { settlementTx?: string | null } = {},
): Payment {
  if (!canTransition(p.state, to)) throw new IllegalPaymentTransition(p.state, to);
  return { ...p, ...patch, state: to, updatedAt: now };
}
