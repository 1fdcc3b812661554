/**
 * The EIP-3009 authorization inside an x402 `exact` EVM payload: who pays, how much, the
 * validity window and the nonce the service claims before settling.
 */
import { z } from 'zod';
import { PaymentInvalid } from '../../domain/errors.js';
import { PAYMENT_REASONS } from './payment-reasons.js';

const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));
/**
 * A uint256 as decimal digits: what the signed struct can hold (a larger number is no
 * authorization). One check that cannot throw: zod runs a refinement even on a string whose regex
 * failed, and `BigInt("1e6")` throws.
 */
const isUint256 = (v: string) => /^\d{1,78}$/.test(v) && BigInt(v) < 2n ** 256n;
const uint = z.string().refine(isUint256, 'must be a uint256 as decimal digits');

const exactPayload = z.object({
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
  authorization: z.object({
    from: hex(20),
    to: hex(20),
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: hex(32),
  }),
});

export interface ExactAuthorization {
  signature: string;
  from: string;
  to: string;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: string;
}

export function readAuthorization(payload: unknown): ExactAuthorization {
  const parsed = exactPayload.safeParse(payload);
  if (!parsed.success) {
    // The first field at fault, by its path in the PaymentPayload (`payload.authorization.value`).
    const issue = parsed.error.issues[0];
    const field = ['payload', ...(issue?.path ?? [])].join('.');
    throw new PaymentInvalid(`The payment is not an EIP-3009 authorization of the exact scheme: ${field} ${issue?.message ?? 'is invalid'}.`, {
      reason: PAYMENT_REASONS.invalidPayload,
      field,
    });
  }
  const a = parsed.data.authorization;
  return {
    signature: parsed.data.signature.toLowerCase(),
    from: a.from,
    to: a.to,
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce.toLowerCase(),
  };
}
