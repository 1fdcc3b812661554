/**
 * Request and response schemas (zod): the single source for request checking, the
 * /entrypoints manifest and the OpenAPI document. Amounts are decimal strings checked by the
 * domain's money parser; unknown fields are refused.
 */
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../domain/errors.js';
import { parseAmount, TOKEN_DECIMALS, USDC_DECIMALS } from '../domain/money.js';
import { PRODUCTION, TESTNET } from '../domain/network.js';

function decimal(decimals: number, description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseAmount(value, decimals);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof ValidationError ? e.issues[0]!.message : 'invalid amount' });
      }
    })
    .meta({ description, pattern: `^\\d+(\\.\\d{1,${decimals}})?$` });
}

export const usdString = (description: string) => decimal(USDC_DECIMALS, `${description} (USDC, decimal string, ≤ 6 decimals)`);
export const tokenString = (description: string) => decimal(TOKEN_DECIMALS, `${description} (tokens, decimal string, ≤ 18 decimals)`);

/** 2^256: no EIP-712 uint256 (an amount, a time) a wallet signs reaches it. */
const UINT256_LIMIT = 1n << 256n;

/** Tokens a holder moves on chain: more than zero, and in units (1e-18) a uint256 a wallet can sign. */
const tokensToMove = (description: string) =>
  tokenString(description).superRefine((value, ctx) => {
    let units: bigint;
    try {
      units = parseAmount(value, TOKEN_DECIMALS);
    } catch {
      return; // reported by tokenString
    }
    if (units === 0n) ctx.addIssue({ code: 'custom', message: 'must be more than 0' });
    else if (units >= UINT256_LIMIT) ctx.addIssue({ code: 'custom', message: 'is more tokens than a uint256 holds (2^256 − 1 units of 1e-18)' });
  });
export const tokenIdSchema = z.string().regex(/^tok_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a token id (tok_ + 26-character ULID)');
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
/** A wallet that can hold and sign: any address but the zero address. */
export const walletSchema = addressSchema.refine((a) => !/^0x0{40}$/.test(a), 'must not be the zero address');
export const networkSchema = z.enum([PRODUCTION, TESTNET]);

export const createTokenInput = z.strictObject({
  name: z.string().meta({ description: '1–32 characters' }),
  symbol: z.string().meta({ description: '1–10 characters A-Z, 0-9 (upper-cased)' }),
  description: z.string().optional().meta({ description: 'up to 500 characters' }),
  imageUrl: z.string().optional().meta({ description: 'https URL, up to 2048 characters' }),
  website: z.string().optional().meta({ description: "the token's site: https URL, up to 2048 characters" }),
  twitter: z.string().optional().meta({ description: 'X (Twitter) handle: name, @name or https://x.com/name' }),
  telegram: z.string().optional().meta({ description: 'Telegram username: name, @name or https://t.me/name' }),
  platformReferrer: walletSchema
    .optional()
    .meta({ description: 'the address that brought this token (a launch platform, an agent): earns a share of every trading fee, for ever' }),
  initialBuyUsd: usdString("the creator's own first buy, paid with the create (the price becomes create + initialBuyUsd)").optional(),
});

/** Who brought this trade: earns a share of its fee (docs/api.md "Fees and earnings"). */
const referrer = walletSchema.optional().meta({ description: 'who referred this trade: earns a share of its fee (not the trader itself)' });

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

const uint256 = (what: string) =>
  z
    .string()
    .regex(/^\d{1,78}$/, 'must be an unsigned integer as a decimal string')
    .refine((v) => !/^\d+$/.test(v) || BigInt(v) < UINT256_LIMIT, 'must be below 2^256 (a uint256)')
    .describe(what);

/** The seller's EIP-3009 ReceiveWithAuthorization on the token (GET /api/tokens/:id/sell-authorization gives it to sign). */
export const tokenAuthorizationSchema = z.strictObject({
  from: addressSchema.describe('the seller: whose tokens are pulled, and who pays the sell'),
  to: addressSchema.describe("the service's custody"),
  value: uint256('token units (1e-18): exactly `tokens`'),
  validAfter: uint256('Unix seconds'),
  validBefore: uint256('Unix seconds; at least 120 s ahead when the sell is checked'),
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x + 64 hex characters (a bytes32)'),
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature as 0x-hex'),
});

export const sellInput = z.strictObject({
  tokenId: tokenIdSchema,
  tokens: tokensToMove('tokens to sell'),
  minUsdOut: usdString('least USD to receive after the fee').optional(),
  tokenAuthorization: tokenAuthorizationSchema,
  referrer,
});

export const tokenInfoInput = z.strictObject({ tokenId: tokenIdSchema });

// ---- responses (documentation and manifest) ----

const amount = z.string();
export const tokenOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  name: z.string(),
  symbol: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  creator: z.string(),
  links: z.object({ website: z.string().nullable(), twitter: z.string().nullable(), telegram: z.string().nullable() }).meta({ description: 'profile URLs' }),
  platformReferrer: z.string().nullable(),
  launchFee: z
    .object({ startBps: z.number(), endsAt: z.string() })
    .nullable()
    .meta({ description: 'the anti-snipe launch fee: starts at startBps at creation and falls linearly to curve.feeBps at endsAt; null: none' }),
  state: z.enum(['ACTIVE', 'GRADUATED']),
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
  priceUsd: amount,
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
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(zodIssues(result.error, prefix));
}

/** Parses a query string: an unknown parameter is reported under its own name, one issue each. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>): z.output<S> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: key, message: 'is not a query parameter of this endpoint' }))
        : zodIssues(new z.ZodError([issue])),
    ),
  );
}

export function zodIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path: path || '(body)', message: `unknown field(s): ${issue.keys.join(', ')}` };
    }
    return { path: path || '(body)', message: issue.message };
  });
}

// ---- query strings of the free endpoints ----

const limit = (max: number, dflt: number) => z.coerce.number().int().min(1).max(max).default(dflt);
// A query string spells a flag "true"/"false"; a JSON caller (an MCP tool's arguments) may send the boolean.
const boolString = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const listTokensQuery = z.strictObject({
  network: networkSchema.optional(),
  state: z.enum(['ACTIVE', 'GRADUATED']).optional(),
  creator: addressSchema.optional(),
  q: z.string().min(1).max(32).optional(),
  sort: z.enum(['created', 'marketCap', 'volume24h']).default('created'),
  limit: limit(100, 20),
  cursor: z.string().max(512).optional(),
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
  slippageBps: z.coerce.number().int().min(0).max(5000).default(100),
});

export const tradesQuery = z.strictObject({ limit: limit(100, 50), cursor: z.string().max(512).optional() });
export const holdersQuery = z.strictObject({ limit: limit(100, 20) });
export const sellAuthorizationQuery = z.strictObject({ wallet: walletSchema, tokens: tokensToMove('tokens to sell') });
export const candlesQuery = z.strictObject({
  interval: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});
export const eventsQuery = z.strictObject({ tokenId: tokenIdSchema.optional(), network: networkSchema.optional() });

export const creatorsQuery = z.strictObject({
  sort: z.literal('earnings').default('earnings').meta({ description: 'what creators are ranked by' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});


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
