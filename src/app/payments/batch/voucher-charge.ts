/**
 * A batch-settlement payment's voucher as the pipeline carries it (docs/payments.md "Pay once,
 * call many"): claimed under a nonce of its own, charged to its channel at the settlement step
 * (pipeline/settlement.ts), uncharged by the refund (pipeline/application.ts) unless a claim took
 * the charge — then it is paid back on chain like any refund.
 */
import { createHash } from 'node:crypto';
import { commitmentChannel, isVoucherCommitment, type Channel } from '../../../domain/channel.js';
import type { Payment } from '../../../domain/payment.js';
import type { Stores } from '../../../ports/unit-of-work.js';
import type { ExactAuthorization } from '../exact-authorization.js';
import type { VoucherPayment } from './voucher-payment.js';

/** A voucher and its channel as admission saw them. */
export interface VoucherCharge {
  voucher: VoucherPayment;
  channel: Channel;
}

/** A voucher never expires on chain: its payment's `validBefore` is the largest a uint40 holds. */
const VOUCHER_VALID_BEFORE = 2n ** 40n - 1n;

/**
 * A voucher in the shape the pipeline claims payments by: its payer, receiver and maximum, and a
 * nonce of (channel, maximum, request) — the same voucher sent again for the same request is the
 * same payment (answered as it was); for another request it is another payment, which the
 * channel's books refuse unless the voucher still covers it.
 */
export function voucherAuthorization(v: VoucherPayment, requestHash: string): ExactAuthorization {
  const nonce = createHash('sha256').update(`${v.channelId}:${v.max}:${requestHash}`).digest('hex');
  return { signature: v.signature, from: v.config.payer, to: v.config.receiver, value: v.max, validAfter: 0n, validBefore: VOUCHER_VALID_BEFORE, nonce: `0x${nonce}` };
}

/**
 * A refund of a call paid by voucher, in the refund's transaction: its charge taken back when no
 * claim has taken it (true); false when the payment was no voucher's or a claim took the charge —
 * then it is paid back on chain.
 */
export async function unchargeVoucher(stores: Stores, payment: Payment, now: Date): Promise<boolean> {
  if (!isVoucherCommitment(payment.settlementTx)) return false;
  return stores.channels.uncharge(commitmentChannel(payment.settlementTx!), payment.amount, now);
}
