/**
 * The payload of an x402 `batch-settlement` payment (docs/payments.md "Pay once, call many"), as
 * the official @x402/evm client sends it: a voucher on a channel, alone or with the deposit that
 * funds the channel (an EIP-3009 authorization the facilitator submits), or the payer's request
 * for a cooperative refund (a voucher of what was charged).
 */
import { z } from 'zod';
import { PaymentInvalid } from '../../../domain/errors.js';
import type { ChannelConfig } from '../../../domain/channel.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';

export const BATCH_SETTLEMENT = 'batch-settlement';

const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));
const signature = z.string().regex(/^0x[0-9a-fA-F]{2,4096}$/);
/** A uint128 as decimal digits: what the contract's vouchers hold. */
const uint128 = z.string().refine((v) => /^\d{1,39}$/.test(v) && BigInt(v) < 2n ** 128n, 'must be a uint128 as decimal digits');

const channelConfig = z.object({
  payer: hex(20),
  payerAuthorizer: hex(20),
  receiver: hex(20),
  receiverAuthorizer: hex(20),
  token: hex(20),
  withdrawDelay: z.number().int().min(0).max(2 ** 40 - 1),
  salt: hex(32),
});
const voucher = z.object({ channelId: hex(32), maxClaimableAmount: uint128, signature });

const payload = z.discriminatedUnion('type', [
  z.object({ type: z.literal('voucher'), channelConfig, voucher }),
  z.object({ type: z.literal('deposit'), channelConfig, voucher, deposit: z.object({ amount: uint128, authorization: z.record(z.string(), z.unknown()) }) }),
  z.object({ type: z.literal('refund'), channelConfig, voucher, amount: uint128.optional() }),
]);

export interface VoucherPayment {
  type: 'voucher' | 'deposit' | 'refund';
  config: ChannelConfig;
  channelId: string;
  max: bigint;
  signature: string;
  /** The deposit that comes with the voucher (type `deposit`), in the asset's smallest units. */
  deposit: bigint | null;
  /** A refund's amount, when the payer asks for less than everything left. */
  refundAmount: bigint | null;
}

export function readVoucherPayment(raw: unknown): VoucherPayment {
  const parsed = payload.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['payload', ...(issue?.path ?? [])].join('.');
    throw new PaymentInvalid(`The payment is not a voucher of the batch-settlement scheme: ${field} ${issue?.message ?? 'is invalid'}.`, {
      reason: PAYMENT_REASONS.invalidPayload,
      field,
    });
  }
  const p = parsed.data;
  return {
    type: p.type,
    config: p.channelConfig,
    channelId: p.voucher.channelId.toLowerCase(),
    max: BigInt(p.voucher.maxClaimableAmount),
    signature: p.voucher.signature.toLowerCase(),
    deposit: p.type === 'deposit' ? BigInt(p.deposit.amount) : null,
    refundAmount: p.type === 'refund' && p.amount !== undefined ? BigInt(p.amount) : null,
  };
}
