/**
 * The payload of an x402 `upto` payment (docs/payments.md "Pay up to"), as the official @x402/evm
 * client sends it: the payer's Permit2 signature transfer of at most `permitted.amount` of the
 * asset, through the x402 upto proxy, to `witness.to`, settled only by `witness.facilitator` —
 * which the service then settles for the price, not the maximum.
 */
import { z } from 'zod';
import { PaymentInvalid } from '../../../domain/errors.js';
import type { ExactAuthorization } from '../exact-authorization.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';

/** The x402 upto proxy, at the same address on every chain (CREATE2): the Permit2 spender of every upto payment. */
export const X402_UPTO_PROXY = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** A uint256 as decimal digits, or as 0x hex (the scheme's examples write nonces so). */
const uint256 = z
  .string()
  .refine((v) => (/^\d{1,78}$/.test(v) || /^0x[0-9a-fA-F]{1,64}$/.test(v)) && BigInt(v) < 2n ** 256n, 'must be a uint256 as decimal digits');
/** A uint48 (Permit2's deadlines fit one) as decimal digits. */
const seconds = z.string().regex(/^\d{1,15}$/, 'must be unix seconds as decimal digits');

const payload = z.object({
  signature: z.string().regex(/^0x[0-9a-fA-F]{2,4096}$/),
  permit2Authorization: z.object({
    from: address,
    permitted: z.object({ token: address, amount: uint256 }),
    spender: address,
    nonce: uint256,
    deadline: seconds,
    witness: z.object({ to: address, facilitator: address, validAfter: seconds }),
  }),
});

export interface UptoPayment {
  signature: string;
  /** The payer. */
  from: string;
  /** The asset's contract. */
  token: string;
  /** The most the payer lets the service take, in the asset's smallest units. */
  maximum: bigint;
  spender: string;
  /** The Permit2 nonce, 0x + 64 hex. */
  nonce: string;
  /** The last second (unix) Permit2 takes the signature. */
  deadline: bigint;
  /** Where it pays. */
  to: string;
  /** The one account that may settle it. */
  facilitator: string;
  validAfter: bigint;
}

export function readUptoPayment(raw: unknown): UptoPayment {
  const parsed = payload.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['payload', ...(issue?.path ?? [])].join('.');
    throw new PaymentInvalid(`The payment is not a Permit2 transfer of the upto scheme: ${field} ${issue?.message ?? 'is invalid'}.`, {
      reason: PAYMENT_REASONS.invalidPayload,
      field,
    });
  }
  const a = parsed.data.permit2Authorization;
  return {
    signature: parsed.data.signature.toLowerCase(),
    from: a.from,
    token: a.permitted.token,
    maximum: BigInt(a.permitted.amount),
    spender: a.spender,
    nonce: `0x${BigInt(a.nonce).toString(16).padStart(64, '0')}`,
    deadline: BigInt(a.deadline),
    to: a.witness.to,
    facilitator: a.witness.facilitator,
    validAfter: BigInt(a.witness.validAfter),
  };
}

/**
 * The transfer in the shape the pipeline claims payments by: its payer, recipient and maximum,
 * its Permit2 nonce, and `validBefore` one second past its deadline — Permit2 takes a signature
 * until the block time passes the deadline, so a block at `deadline + 1` or later proves it
 * unusable (the FAILED rule).
 */
export function uptoAuthorization(p: UptoPayment): ExactAuthorization {
  return { signature: p.signature, from: p.from, to: p.to, value: p.maximum, validAfter: p.validAfter, validBefore: p.deadline + 1n, nonce: p.nonce };
}
