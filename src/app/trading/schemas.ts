/**
 * Trading's schemas: the buys, the sell, quotes, positions and the sell's authorization.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { amount, deliveryOutput, receiveAuthorizationTypedData, indexerOutput, positionOutput, tradeOutput } from '../kit/output-schemas.js';
import { addressSchema, boolString, networkSchema, tokenAuthorizationSchema, tokenIdSchema, tokenString, tokensToMove, usdString, walletSchema, wholeNumber } from '../kit/schemas.js';

/** Who brought this trade: earns a share of its fee (docs/api.md "Fees and earnings"). */
export const referrer = walletSchema.optional().meta({ description: "who referred this trade: earns a share of its fee (not the trader itself; never the service's own accounts or contracts)" });

export const buyUsdInput = z.strictObject({
  tokenId: tokenIdSchema,
  usdAmount: usdString('gross USD to spend, fee included'),
  minTokensOut: tokenString('least tokens to accept').optional(),
  referrer,
});

export const buyTokensInput = z.strictObject({
  tokenId: tokenIdSchema,
  tokens: tokenString('tokens to buy'),
  maxUsd: usdString('most USD to pay').optional(),
  referrer,
});

export const buyQuoteInput = z.strictObject({
  quoteId: z.string().regex(/^qte_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a quote id from GET /api/quote'),
  referrer,
});

export const sellInput = z.strictObject({
  tokenId: tokenIdSchema,
  tokens: tokensToMove('tokens to sell'),
  minUsdOut: usdString('least USD to receive after the fee').optional(),
  tokenAuthorization: tokenAuthorizationSchema,
  referrer,
});

export const positionsQuery = z.strictObject({
  // Optional only for a caller that proves its wallet with Sign-In-With-X (docs/api.md "Sign-In-With-X").
  wallet: addressSchema.optional(),
  network: networkSchema.optional(),
  includeZero: boolString.default(true),
});

export const quoteQuery = z.strictObject({
  tokenId: tokenIdSchema,
  side: z.enum(['buy', 'sell']),
  usdAmount: usdString('USD to spend (buy)').optional(),
  tokens: tokenString('tokens to buy or sell').optional(),
  slippageBps: wholeNumber(0, 5000).default(100),
});

export const sellAuthorizationQuery = z.strictObject({ wallet: walletSchema, tokens: tokensToMove('tokens to sell') });
// ---- answers ----

export const buyOutput = z.object({
  tokenId: z.string(),
  tokensReceived: amount,
  usdSpent: amount,
  feeUsd: amount,
  priceUsd: amount,
  spotPriceUsd: amount,
  position: positionOutput,
  trade: tradeOutput,
  delivery: deliveryOutput,
  payment: z.object({ paymentId: z.string(), network: networkSchema, payer: z.string(), transaction: z.string().nullable() }),
});

export const sellOutput = z.object({
  tokenId: z.string(),
  tokensSold: amount,
  usdReceived: amount,
  feeUsd: amount,
  priceUsd: amount,
  spotPriceUsd: amount,
  position: positionOutput,
  trade: tradeOutput,
  payout: z.object({
    payoutId: z.string(),
    network: networkSchema,
    wallet: z.string(),
    asset: z.literal('USDC').describe('sell proceeds are paid in USDC, whatever asset paid the $0.01 fee'),
    amount,
    reason: z.enum(['sell', 'refund']),
    state: z.enum(['PENDING', 'SENT', 'CONFIRMED', 'FAILED']),
    txHash: z.string().nullable(),
  }),
  pullTx: z.string(),
});

export const positionsOutput = z.object({
  wallet: z.string(),
  network: networkSchema,
  items: z.array(positionOutput),
  totals: z.object({ valueUsd: amount, costBasisUsd: amount, unrealizedPnlUsd: amount, realizedPnlUsd: amount }),
  indexer: indexerOutput,
});

export const quoteOutput = z.object({
  quoteId: z.string().meta({ description: 'execute it with token_buy_quote within 60 s' }),
  tokenId: z.string(),
  network: networkSchema,
  side: z.enum(['buy', 'sell']),
  usdAmount: amount,
  tokens: amount,
  priceUsd: amount,
  feeUsd: amount,
  slippageBps: z.number(),
  provider: z.string(),
  expiresAt: z.string(),
  minTokensOut: amount.optional().meta({ description: 'buy quotes' }),
  minUsdOut: amount.optional().meta({ description: 'sell quotes' }),
});

/** What a seller signs (EIP-712) so custody may pull its tokens, and the authorization to send back with the signature. */
export const sellAuthorizationOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  tokens: amount,
  onChainBalance: amount.meta({ description: "the wallet's balance of the token on chain now" }),
  expiresAt: z.string(),
  typedData: receiveAuthorizationTypedData,
  tokenAuthorization: tokenAuthorizationSchema
    .omit({ signature: true })
    .meta({ description: "send this as token_sell's tokenAuthorization, with `signature` added" }),
});
