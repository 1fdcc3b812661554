/**
 * The answers' schemas (zod): what the service answers with, the single source of the OpenAPI
 * document, the manifest, the MCP tools' output schemas, the views' types (views.ts) and the page's
 * types (each read's through its catalogue entry, catalogue/api-types.ts; imported as types only).
 */
import { z } from 'zod';
import { networkSchema, tokenAuthorizationSchema } from './schemas.js';

// ---- responses (documentation and manifest) ----

const amount = z.string();
export const tokenOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  name: z.string(),
  symbol: z.string(),
  description: z.string().nullable(),
  imageUrl: z
    .string()
    .nullable()
    .meta({ description: "the token's image: the service's own copy of an upload (GET /images/<sha256>.webp, at most 512 × 512, immutable), or an https URL named at creation; null: none" }),
  thumbnailUrl: z.string().nullable().meta({ description: 'its 128 × 128 thumbnail (GET /images/<sha256>.webp) when the image was uploaded; null otherwise' }),
  creator: z.string(),
  links: z.object({ website: z.string().nullable(), twitter: z.string().nullable(), telegram: z.string().nullable() }).meta({ description: 'profile URLs' }),
  platformReferrer: z.string().nullable(),
  launchFee: z
    .object({ startBps: z.number(), endsAt: z.string() })
    .nullable()
    .meta({ description: 'the anti-snipe launch fee: starts at startBps when trading starts (creation; a fair launch: its raise settled) and falls linearly to curve.feeBps at endsAt; null: none' }),
  state: z.enum(['ACTIVE', 'GRADUATED']),
  launchMode: z.enum(['curve', 'fair']).meta({ description: 'fair: created with a raise (GET /api/tokens/:id/raise); it trades once the raise ends' }),
  tradingSince: z.string().nullable().meta({ description: 'when trading started; null while a fair launch still raises (buys, sells and quotes: TOKEN_RAISING)' }),
  decimals: z.number(),
  totalSupply: amount,
  curve: z.object({
    virtualUsdReserve: amount,
    virtualTokenReserve: amount,
    realUsdReserve: amount,
    realTokenReserve: amount,
    tokensSold: amount,
    curveSupply: amount,
    feeBps: z.number(),
    progress: amount,
  }),
  priceUsd: amount,
  marketCapUsd: amount,
  volumeUsd24h: amount,
  trades24h: z.number(),
  address: z.string().nullable().describe('the ERC-20 (CREATE2: known from the create on)'),
  deployment: z.object({
    state: z.enum(['PENDING', 'DEPLOYED', 'FAILED']),
    txHash: z.string().nullable(),
    blockNumber: z.string().nullable(),
  }),
  pool: z
    .object({
      dex: z.literal('uniswap-v2'),
      state: z.enum(['PENDING', 'CREATED', 'FAILED']),
      address: z.string().nullable(),
      txHash: z.string().nullable(),
    })
    .nullable()
    .describe('the Uniswap v2 pool graduation seeds; null while the token is on its curve'),
  holders: z.number(),
  creatorEarningsUsd: amount.meta({ description: "the creator's share of this token's fees so far (USD)" }),
  createdAt: z.string(),
  graduatedAt: z.string().nullable(),
});

export const positionOutput = z.object({
  network: networkSchema,
  wallet: z.string(),
  tokenId: z.string(),
  symbol: z.string(),
  balance: amount,
  costBasisUsd: amount,
  avgEntryPriceUsd: amount,
  realizedPnlUsd: amount,
  currentPriceUsd: amount,
  valueUsd: amount,
  unrealizedPnlUsd: amount,
  /** What the wallet holds of the token on chain now; null before deployment or when the chain does not answer. */
  onChainBalance: amount.nullable(),
  updatedAt: z.string(),
});

export const tradeOutput = z.object({
  tradeId: z.string(),
  network: networkSchema,
  tokenId: z.string(),
  wallet: z.string(),
  side: z.enum(['buy', 'sell']),
  usdAmount: amount,
  feeUsd: amount,
  tokenAmount: amount,
  priceUsd: amount.describe('usdAmount / tokenAmount: what the trader paid (buy, fee included) or the curve gave (sell, before the fee) per token'),
  executionPriceUsd: amount.describe("the trade's price without the fee: (usdAmount − feeUsd) / tokenAmount for a buy, usdAmount / tokenAmount for a sell; what candles plot"),
  paymentId: z.string().nullable(),
  settlementTx: z.string().nullable(),
  venue: z.enum(['curve', 'uniswap-v2']).describe('where the trade executed: the curve, or the Uniswap v2 pool after graduation'),
  createdAt: z.string(),
});

export const deliveryOutput = z.object({
  deliveryId: z.string(),
  network: networkSchema,
  tokenId: z.string(),
  wallet: z.string(),
  amount,
  state: z.enum(['PENDING', 'SENT', 'CONFIRMED', 'FAILED']),
  txHash: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

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

const candleOutput = z.object({
  openTime: z.string(),
  open: amount,
  high: amount,
  low: amount,
  close: amount,
  volumeUsd: amount,
  trades: z.number(),
});

export const tokenInfoOutput = tokenOutput.extend({
  holdersTop: z.array(z.object({ wallet: z.string(), balance: amount, share: amount })),
  priceChange24h: amount,
  candles1h: z.array(candleOutput),
});

/** Parses with a schema; failures become VALIDATION_ERROR with one issue per problem. */

/** A create's answer: the token, and the creator's first buy when it asked for one. */
// The buy is described by its key fields only (the rest is token_buy_usd's answer): x402 clients
// echo a route's schemas back in PAYMENT-SIGNATURE, and a header has to pass proxies.
export const createTokenOutput = tokenOutput.extend({
  initialBuy: z
    .looseObject({ tokensReceived: z.string(), usdSpent: z.string(), feeUsd: z.string() })
    .optional()
    .meta({ description: "the creator's first buy (initialBuyUsd), as token_buy_usd answers it; its tokens are delivered once the contract is deployed" }),
});

// ---- answers of the free reads (OpenAPI and the MCP tools' output schemas) ----

const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable().meta({ description: 'pass as `cursor` for the next page; null on the last' }) });

export const indexerOutput = z
  .object({
    network: networkSchema,
    indexedBlock: z.string().nullable(),
    headBlock: z.string().nullable(),
    lagBlocks: z.string().nullable(),
    confirmations: z.number().nullable(),
    caughtUp: z.boolean(),
    updatedAt: z.string().nullable(),
  })
  .meta({ description: 'how far balances follow transfers on chain' });

export const commentOutput = z.object({
  commentId: z.string(),
  tokenId: z.string(),
  network: networkSchema,
  author: z.string().describe('the wallet that paid for the comment'),
  text: z.string().nullable().describe("the comment as plain text; null once the token's creator hid it"),
  hidden: z.boolean(),
  hiddenAt: z.string().nullable(),
  replyTo: z.string().nullable().describe('the top-level comment this one answers; null for a comment of its own'),
  createdAt: z.string(),
  holding: z
    .object({ balance: amount, share: z.string() })
    .describe("what the author holds of the token now, and its share of the tokens in circulation (as /holders)"),
  badges: z.array(z.enum(['creator', 'top_holder'])).describe("creator: the token's creator; top_holder: one of its 10 largest holders"),
});
export const commentThreadOutput = commentOutput.extend({ replies: z.array(commentOutput).describe('its replies, oldest first') });
export const commentPageOutput = page(commentThreadOutput).extend({ tokenId: z.string() });

export const tokenPageOutput = page(tokenOutput);
export const tradePageOutput = page(tradeOutput);

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

export const candlesOutput = z.object({
  tokenId: z.string(),
  interval: z.enum(['1m', '5m', '1h', '1d']),
  from: z.string(),
  to: z.string(),
  items: z.array(candleOutput),
});

export const holdersOutput = z.object({
  tokenId: z.string(),
  items: z.array(z.object({ wallet: z.string(), balance: amount, share: amount.meta({ description: 'of the tokens in circulation' }) })),
  indexer: indexerOutput,
});

const paymentState = z.enum(['VERIFIED', 'SETTLING', 'SETTLED', 'APPLIED', 'REFUNDED', 'REJECTED', 'FAILED']);
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
  reason: z.enum(['sell', 'refund', 'creator_fee', 'referral_fee']),
});

/** What a seller signs (EIP-712) so custody may pull its tokens, and the authorization to send back with the signature. */
export const sellAuthorizationOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  tokens: amount,
  onChainBalance: amount.meta({ description: "the wallet's balance of the token on chain now" }),
  expiresAt: z.string(),
  typedData: z
    .object({
      domain: z.object({ name: z.string(), version: z.string(), chainId: z.number(), verifyingContract: z.string() }),
      types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      primaryType: z.literal('ReceiveWithAuthorization'),
      message: tokenAuthorizationSchema.omit({ signature: true }),
    })
    .meta({ description: 'sign this with eth_signTypedData_v4 (viem signTypedData)' }),
  tokenAuthorization: tokenAuthorizationSchema
    .omit({ signature: true })
    .meta({ description: "send this as token_sell's tokenAuthorization, with `signature` added" }),
});

const nullableString = z.string().nullable();
const ageSeconds = z.number().int().nullable();
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

const pledgeView = z.object({
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

/** Totals per network. */
export const statsOutput = z.object({
  networks: z.array(z.object({ network: networkSchema, tokens: z.number().int(), trades: z.number().int(), volumeUsd: amount, feesUsd: amount })),
});
