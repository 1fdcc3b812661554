/**
 * Earnings' schemas: a wallet's fee shares, creators by earnings.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { amount } from '../kit/output-schemas.js';
import { limit, networkSchema } from '../kit/schemas.js';

export const creatorsQuery = z.strictObject({
  sort: z.literal('earnings').default('earnings').meta({ description: 'what creators are ranked by' }),
  limit: limit(100, 20),
});

const shares = { accruedUsd: amount, paidUsd: amount, pendingUsd: amount };
/** A wallet's fee shares as creator or referrer (docs/api.md "Fees and earnings"): paid counts shares whose payout is confirmed. */
export const earningsOutput = z.object({
  wallet: z.string(),
  ...shares,
  payoutMinUsd: amount,
  items: z.array(z.object({ network: networkSchema, tokenId: z.string(), role: z.string().describe('creator or a referrer'), ...shares })),
});

/** Creators ranked by what they earned, most first. */
export const creatorsOutput = z.object({
  sort: z.literal('earnings'),
  items: z.array(z.object({ rank: z.number().int(), wallet: z.string(), earnedUsd: amount, tokens: z.number().int() })),
});
