/**
 * The x402 payment lifecycle of docs/payments.md as an explicit transition table.
 *
 *   VERIFIED → SETTLING → SETTLED → APPLIED
 *       │          │          └────→ REFUNDED (settled, but the operation could not be applied)
 *       │          └──→ FAILED (the chain proves the authorization unused and unusable: nothing charged)
 *       └──→ REJECTED (a rule failed after verification: never settled, nothing charged)
 *
 * FAILED and REJECTED may still move to REFUNDED: the reconciler's safety net re-reads them on
 * chain, and an authorization found used after all (someone else submitted it) is paid back.
 */
import { InvariantViolation } from './errors.js';
import type { Network, PaymentAsset } from './network.js';
import type { UsdPrice } from './usd-price.js';

/**
 * The x402 scheme a payment came by: `exact` (an EIP-3009 authorization of the price),
 * `batch-settlement` (a voucher on a channel, docs/payments.md "Pay once, call many") or `upto` (a
 * Permit2 transfer of at most a signed maximum, settled for the price, docs/payments.md "Pay up to").
 */
export type PaymentScheme = 'exact' | 'batch-settlement' | 'upto';

export type PaymentState = 'VERIFIED' | 'SETTLING' | 'SETTLED' | 'APPLIED' | 'REFUNDED' | 'REJECTED' | 'FAILED';

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentState, readonly PaymentState[]>> = {
  VERIFIED: ['SETTLING', 'REJECTED'],
  SETTLING: ['SETTLED', 'FAILED'],
  SETTLED: ['APPLIED', 'REFUNDED'],
  APPLIED: [],
  REFUNDED: [],
  REJECTED: ['REFUNDED'],
  FAILED: ['REFUNDED'],
};

export interface Payment {
  readonly paymentId: string;
  readonly network: Network;
  readonly payer: string;
  /** The authorization's nonce, 0x + 64 hex: EIP-3009's; an `upto` payment's Permit2 nonce (a uint256) written so. */
  readonly nonce: string;
  /** How it was paid; absent: `exact` (payments recorded before the scheme was kept). */
  readonly scheme?: PaymentScheme;
  /** The stablecoin paid with (docs/pricing.md). */
  readonly asset: PaymentAsset;
  /** Smallest units of `asset` the authorization moves (an `upto` payment's: what its settlement moves, at most the signed maximum). */
  readonly amount: bigint;
  /** What the payment is booked as, in micro-dollars (rounded down from `amount` at the quote). */
  readonly usdValue: bigint;
  /** The held asset quote the amount was priced at; null for USDC taken 1:1. */
  readonly quoteId: string | null;
  /** That quote's USD price of one `asset`, kept with the payment: payouts in `asset` convert at it. */
  readonly quotePrice: UsdPrice | null;
  /** The operation and body the payment is bound to, e.g. "POST /entrypoints/token_sell". */
  readonly resource: string;
  /**
   * The absolute URL the 402 named (x402 `resource.url`), which the signed receipt names too, so
   * a payment finished by the reconciler is receipted like one finished in its request. Absent
   * for payments taken before it was kept.
   */
  readonly resourceUrl?: string | null;
  /** sha256 of the canonical request (resource + body): the same signature for another request is refused. */
  readonly requestHash: string;
  /** sha256 of the EIP-3009 signature: a replay must present the very same signed authorization. */
  readonly signatureHash: string;
  /** The request's input as received, so a reconciler can apply a payment whose request died. */
  readonly input: unknown;
  readonly state: PaymentState;
  readonly settlementTx: string | null;
  /**
   * Unix seconds from which the authorization can no longer be used on chain (EIP-3009's
   * `validBefore`; an `upto` payment's Permit2 `deadline` + 1: Permit2 takes a signature until
   * the block time passes its deadline).
   */
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

/** An EIP-3009 authorization as the chain knows it, read at one block. */
export interface AuthorizationOnChain {
  state: 'unused' | 'used' | 'cancelled';
  /** The transaction that used it, when found. */
  transaction: string | null;
  /** Unix seconds of the block the state was read at. */
  blockTime: bigint;
}

/**
 * What a settlement that did not answer "success" really did (docs/payments.md, the FAILED rule):
 * `settled` — the authorization was used, the money moved; `failed` — it is unused and can
 * never be used (cancelled, or unused at a block at or past `validBefore`: no later block can
 * include it); `unknown` — unused but still usable, so a transaction may yet be mined.
 */
export function settlementOutcome(onChain: AuthorizationOnChain, validBefore: bigint): 'settled' | 'failed' | 'unknown' {
  if (onChain.state === 'used') return 'settled';
  if (onChain.state === 'cancelled' || onChain.blockTime >= validBefore) return 'failed';
  return 'unknown';
}
