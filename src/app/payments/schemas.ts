/**
 * Payments' schemas: a payment, a payout, a batch-settlement channel, and the payment assets' prices.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { amount } from '../kit/output-schemas.js';
import { networkSchema } from '../kit/schemas.js';
import { sellOutput } from '../trading/index.js';

// ---- answers ----

export const paymentState = z.enum(['VERIFIED', 'SETTLING', 'SETTLED', 'APPLIED', 'REFUNDED', 'REJECTED', 'FAILED']);
export const paymentOutput = z.object({
  paymentId: z.string(),
  network: networkSchema,
  payer: z.string(),
  nonce: z.string(),
  asset: z.enum(['USDC', 'EURC']),
  amount: amount.meta({ description: 'in `asset`' }),
  usdValue: amount,
  quoteId: z.string().nullable(),
  resource: z.string().meta({ description: 'the entrypoint paid for' }),
  state: paymentState.meta({ description: 'APPLIED: done; REFUNDED: paid back; REJECTED, FAILED: nothing charged; the others: not final yet' }),
  settlementTx: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  paymentIdentifier: z.string().nullable(),
  receipt: z.looseObject({}).nullable().meta({ description: 'the signed receipt of the settlement (offer-receipt extension)' }),
});

export const payoutOutput = sellOutput.shape.payout.extend({
  asset: z.enum(['USDC', 'EURC']).describe('sell proceeds and fee shares are paid in USDC; a refund in the asset that paid'),
  reason: z.enum(['sell', 'refund', 'creator_fee', 'cashback', 'referral_fee']),
});

export const channelOutput = z.object({
  channelId: z.string(),
  network: networkSchema,
  asset: z.enum(['USDC', 'EURC']),
  payer: z.string(),
  receiver: z.string(),
  balance: amount.meta({ description: "what the channel's deposits hold, in `asset` (the contract's balance as last seen)" }),
  charged: amount.meta({ description: 'the cumulative price of the calls paid from the channel' }),
  claimed: amount.meta({ description: 'what the service has claimed on chain of it' }),
  claiming: amount.nullable().meta({ description: 'the total a claim under way is taking; null when none is' }),
  refundable: amount.meta({ description: 'what a cooperative refund gives back now: balance less charged' }),
  signedMaxClaimable: amount.meta({ description: 'the highest voucher accepted' }),
  refundNonce: z.string(),
  withdrawDelay: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const nullableString = z.string().nullable();
export const ageSeconds = z.number().int().nullable();
export const pricesOutput = z.object({
  prices: z.array(
    z.object({
      asset: z.enum(['USDC', 'EURC', 'ETH']),
      network: networkSchema,
      usdPrice: nullableString.meta({ description: 'decimal string; null when no fresh answer is left' }),
      provider: nullableString.meta({ description: 'median(<sources kept>)' }),
      observedAt: nullableString,
      ageSeconds,
      belowDepegFloor: z.boolean().nullable().optional().meta({ description: 'USDC only: priced from its quote instead of 1:1' }),
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
      answers: z.array(
        z.object({
          provider: z.string(),
          status: z.enum(['ok', 'stale', 'outlier', 'failed', 'skipped']),
          usdPrice: nullableString,
          observedAt: nullableString,
          ageSeconds,
          reason: nullableString,
        }),
      ),
    }),
  ),
  providers: z.array(
    z.object({
      name: z.string(),
      limit: z.looseObject({ points: z.number(), durationSeconds: z.number() }),
      timeoutMs: z.number(),
      breaker: z.looseObject({ state: z.enum(['closed', 'open', 'half-open']), openUntil: nullableString }),
      rateLimitedUntil: nullableString,
      lastFailure: z.looseObject({}).nullable(),
    }),
  ),
  policy: z.looseObject({}),
});

// ---- fair launches (docs/api.md "Fair launches") ----
