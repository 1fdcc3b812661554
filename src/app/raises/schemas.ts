/**
 * Fair launches' schemas: a pledge, its authorization, its cancel, and a raise.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { USDC_DECIMALS } from '../../domain/money.js';
import { amount } from '../kit/output-schemas.js';
import { addressSchema, networkSchema, positive, tokenAuthorizationSchema, uint256, tokenIdSchema, usdString, walletSchema } from '../kit/schemas.js';
import { sellAuthorizationOutput } from '../trading/index.js';

/** A pledge's USDC ReceiveWithAuthorization to custody (GET /api/tokens/:id/pledge-authorization gives it to sign). */
export const pledgeAuthorizationSchema = tokenAuthorizationSchema.extend({
  from: addressSchema.describe('the pledger: whose USDC is collected if the raise fills, and who pays the $0.01 pledge'),
  value: uint256('USDC units (1e-6): exactly `usdAmount`'),
  validBefore: uint256('Unix seconds; at least the raise’s end plus its settling window'),
});

/** A pledge's amount: the same piece for the pledge and the read that prepares it. */
export const pledgeAmount = (description: string) => positive(usdString(description), USDC_DECIMALS);

export const pledgeInput = z.strictObject({
  tokenId: tokenIdSchema,
  usdAmount: pledgeAmount('the pledge: USDC collected only if the raise fills'),
  authorization: pledgeAuthorizationSchema,
});

export const pledgeAuthorizationQuery = z.strictObject({ wallet: walletSchema, usdAmount: pledgeAmount('the pledge') });

export const pledgeIdSchema = z.string().regex(/^pld_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a pledge id (pld_ + 26-character ULID)');

export const cancelPledgeInput = z.strictObject({
  pledgeId: pledgeIdSchema,
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature as 0x-hex')
    .optional()
    .meta({ description: 'the pledger’s personal_sign (EIP-191) of the text "Cancel pledge <pledgeId>"; over HTTP a SIGN-IN-WITH-X proof of the pledger may stand instead' }),
});

// ---- answers ----

export const pledgeView = z.object({
  pledgeId: z.string(),
  wallet: z.string(),
  usdAmount: amount,
  state: z.enum(['PLEDGED', 'CANCELLED', 'COLLECTED', 'DROPPED', 'REFUNDED', 'RELEASED']),
  tokens: amount.meta({ description: 'its pro-rata share of the raise’s buy, rounded down; 0 until FILLED' }),
  dropReason: z.string().nullable(),
  payoutId: z.string().nullable().meta({ description: 'what paid it back in full, when a FAILED raise had collected it' }),
  createdAt: z.string(),
});

export const raiseOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  state: z.enum(['RAISING', 'FILLED', 'FAILED']),
  settling: z.boolean().meta({ description: 'the raise ended and its pledges are being collected; it is FILLED or FAILED next' }),
  goalUsd: amount,
  maxPerWalletUsd: amount.nullable(),
  endsAt: z.string(),
  pledgedUsd: amount.meta({ description: 'the pledges that count: PLEDGED, or COLLECTED' }),
  progress: amount.meta({ description: 'pledgedUsd / goalUsd, 4 decimals (may pass 1)' }),
  pledgers: z.number().int(),
  collectedUsd: amount,
  tokensBought: amount,
  remainderTokens: amount.meta({ description: "what the pro-rata split rounded away: custody keeps it" }),
  priceUsd: amount.nullable().meta({ description: 'once FILLED: the one price every pledger paid (collectedUsd / tokensBought)' }),
  tradeId: z.string().nullable(),
  failure: z.enum(['goal_not_reached', 'collected_below_goal']).nullable(),
  byWallet: z.array(z.object({ wallet: z.string(), pledgedUsd: amount, tokens: amount })),
  pledges: z.array(pledgeView),
});

export const pledgeOutput = z.object({ pledge: pledgeView, raise: raiseOutput });

export const pledgeAuthorizationOutput = sellAuthorizationOutput.omit({ tokens: true, onChainBalance: true, tokenAuthorization: true }).extend({
  usdAmount: amount,
  onChainBalance: amount.meta({ description: "the wallet's USDC on chain now" }),
  authorization: tokenAuthorizationSchema.omit({ signature: true }).meta({ description: "send this as token_pledge's authorization, with `signature` added" }),
});
