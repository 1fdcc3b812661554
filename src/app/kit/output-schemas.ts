/**
 * The answers' shapes every room shares (zod): a token, a position, a trade, a delivery, a page.
 * Each room's own answers are in its schemas.ts; together they are the single source of the
 * OpenAPI document, the manifest, the MCP tools' output schemas, the views' types (views.ts) and
 * the page's types (src/adapters/web/browser/types.ts imports them as types).
 */
import { z } from 'zod';
import { networkSchema, tokenAuthorizationSchema } from './schemas.js';

// ---- responses (documentation and manifest) ----

export const amount = z.string();
/** A vested dev buy's schedule and where it stands (docs/api.md "Fees and earnings"). */
export const vestingOutput = z
  .object({
    tokens: amount.meta({ description: "the dev buy's tokens, all locked in custody at creation" }),
    releasedTokens: amount.meta({ description: "released so far: delivered to the creator's wallet, or on their way" }),
    lockedTokens: amount.meta({ description: 'still locked in custody: tokens minus releasedTokens' }),
    cliffSeconds: z.number().int(),
    durationSeconds: z.number().int(),
    startsAt: z.string().meta({ description: 'the dev buy: the token’s creation' }),
    cliffEndsAt: z.string().meta({ description: 'nothing vests before this' }),
    endsAt: z.string().meta({ description: 'everything has vested by this: cliffEndsAt + durationSeconds' }),
    nextReleaseAt: z.string().nullable().meta({ description: 'when a worker pass releases what vested next, or after; null once all is released' }),
  })
  .meta({ description: "a vested dev buy: locked in custody, released linearly after the cliff to the creator's wallet" });

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
  feeMode: z.enum(['creator', 'cashback']).meta({ description: "who earns the creator's half of each trading fee: the creatorSplits wallets (creator), or each trade's own trader (cashback)" }),
  creatorSplits: z
    .array(z.object({ wallet: z.string(), bps: z.number().int() }))
    .nullable()
    .meta({ description: 'the wallets the creator share is split among, each its part in bps of it (the creator alone: one at 10000); null on a cashback token' }),
  vesting: vestingOutput.nullable().meta({ description: "the creator's vested dev buy; null: none" }),
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
  lockedBalance: amount.meta({ description: "of balance, the tokens still locked in custody by the creator's vested dev buy (they cannot be sold until released); 0 for anyone else" }),
  vesting: vestingOutput.nullable().meta({ description: "the vested dev buy behind lockedBalance (the token creator's own position); null: none" }),
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

export const page = <T extends z.ZodType>(item: T) =>
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

/** What a wallet signs to authorize a ReceiveWithAuthorization (EIP-3009) of its tokens or USDC: typed data for eth_signTypedData_v4. */
export const receiveAuthorizationTypedData = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.number(), verifyingContract: z.string() }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.literal('ReceiveWithAuthorization'),
    message: tokenAuthorizationSchema.omit({ signature: true }),
  })
  .meta({ description: 'sign this with eth_signTypedData_v4 (viem signTypedData)' });
