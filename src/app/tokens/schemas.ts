/**
 * A token's schemas: creating one, its image and analytics, and the reads of tokens, trades, candles and holders.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { amount, indexerOutput, page, tokenOutput, tradeOutput } from '../kit/output-schemas.js';
import { MAX_CREATOR_SPLITS } from '../../domain/fees.js';
import { VESTING_MAX_CLIFF_SECONDS, VESTING_MAX_DURATION_SECONDS } from '../../domain/vesting.js';
import { addressSchema, limit, networkSchema, tokenIdSchema, usdString, walletSchema } from '../kit/schemas.js';

/** An uploaded image (docs/api.md "Token images"): the file as base64 or a data: URL. */
export const imageUpload = z.string().meta({
  description: 'the image file as base64, or a data: URL (data:image/png;base64,…): PNG, JPEG, WebP or GIF, at most 1 MiB (told by its bytes; SVG refused); kept as WebP of at most 512 × 512 plus a 128 × 128 thumbnail',
});

/** A fair launch (docs/api.md "Fair launches"): a raise instead of the curve until it ends. */
export const fairLaunchSchema = z.strictObject({
  mode: z.literal('fair').meta({ description: 'a raise first: pledges until the end, then one buy for every pledger at one price' }),
  goalUsd: usdString('the raise fills when its usable pledges reach this'),
  durationSeconds: z.number().int().min(10).max(604_800).meta({ description: 'how long the raise takes pledges: 10 s to 7 days' }),
  maxPerWalletUsd: usdString('the most one wallet may pledge in total').optional(),
});

/** The wallets a token's creator share is split among (docs/api.md "Fees and earnings"). */
export const creatorSplitsSchema = z
  .array(
    z.strictObject({
      wallet: walletSchema.meta({ description: "a wallet that earns a part of the creator share (never the service's own accounts or contracts)" }),
      bps: z.number().int().min(1).max(10_000).meta({ description: 'its part of the creator share, in basis points (1–10000)' }),
    }),
  )
  .min(1)
  .max(MAX_CREATOR_SPLITS)
  .meta({ description: `1 to ${MAX_CREATOR_SPLITS} wallets sharing the creator's half of every trading fee: bps add up to 10000, no wallet twice; each part is floor(share × bps / 10000), the remainder to the first` });

/** A dev buy's vesting (docs/api.md "Fees and earnings"): locked in custody, released on this schedule. */
export const vestingSchema = z.strictObject({
  cliffSeconds: z.number().int().min(0).max(VESTING_MAX_CLIFF_SECONDS).meta({ description: 'nothing vests before this many seconds after creation (0 to one year)' }),
  durationSeconds: z.number().int().min(0).max(VESTING_MAX_DURATION_SECONDS).meta({ description: 'then the tokens vest linearly over this many seconds (0 to four years)' }),
});

export const createTokenInput = z.strictObject({
  name: z.string().meta({ description: '1–32 characters' }),
  symbol: z.string().meta({ description: '1–10 characters A-Z, 0-9 (upper-cased)' }),
  description: z.string().optional().meta({ description: 'up to 500 characters' }),
  imageUrl: z.string().optional().meta({ description: 'https URL, up to 2048 characters (or upload `image` instead)' }),
  image: imageUpload.optional(),
  website: z.string().optional().meta({ description: "the token's site: https URL, up to 2048 characters" }),
  twitter: z.string().optional().meta({ description: 'X (Twitter) handle: name, @name or https://x.com/name' }),
  telegram: z.string().optional().meta({ description: 'Telegram username: name, @name or https://t.me/name' }),
  platformReferrer: walletSchema
    .optional()
    .meta({ description: "the address that brought this token (a launch platform, an agent): earns a share of every trading fee, for ever (never the service's own accounts or contracts)" }),
  initialBuyUsd: usdString("the creator's own first buy, paid with the create (the price becomes create + initialBuyUsd)").optional(),
  launch: fairLaunchSchema.optional().meta({ description: 'open a raise instead of trading at once (a fair launch); not with initialBuyUsd' }),
  feeMode: z
    .enum(['creator', 'cashback'])
    .optional()
    .meta({ description: "who earns the creator's half of each trading fee: `creator` (default: the creator, or its creatorSplits) or `cashback` (each trade's own trader)" }),
  creatorSplits: creatorSplitsSchema.optional(),
  vesting: vestingSchema
    .optional()
    .meta({ description: "lock the dev buy (initialBuyUsd) in custody and release it on this schedule to the creator's wallet; its locked tokens cannot be sold" }),
});

/** A creator changing its token's splits (free, its wallet proven with Sign-In-With-X): the body beside the path's token. */
export const creatorSplitsInput = z.strictObject({ creatorSplits: creatorSplitsSchema });

export const tokenInfoInput = z.strictObject({ tokenId: tokenIdSchema });

export const tokenImageInput = z.strictObject({ tokenId: tokenIdSchema, image: imageUpload });

export const listTokensQuery = z.strictObject({
  network: networkSchema.optional(),
  state: z.enum(['ACTIVE', 'GRADUATED']).optional(),
  creator: addressSchema.optional(),
  // A name or symbol prefix: names hold no control character, so none is asked for.
  q: z.string().min(1).max(32).regex(/^\P{Cc}*$/u, 'must not contain control characters').optional(),
  sort: z.enum(['created', 'marketCap', 'volume24h']).default('created'),
  limit: limit(100, 20),
  cursor: z.string().max(512).optional(),
});

export const tradesQuery = z.strictObject({ limit: limit(100, 50), cursor: z.string().max(512).optional() });
export const holdersQuery = z.strictObject({ limit: limit(100, 20) });
export const candlesQuery = z.strictObject({
  interval: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});
// ---- answers ----

export const candleOutput = z.object({
  openTime: z.string(),
  open: amount,
  high: amount,
  low: amount,
  close: amount,
  volumeUsd: amount,
  trades: z.number(),
});

export const tokenInfoOutput = tokenOutput.extend({
  holdersTop: z.array(z.object({ wallet: z.string(), balance: amount, share: amount, locked: amount })),
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
    .meta({
      description:
        "the creator's first buy (initialBuyUsd), as token_buy_usd answers it; its tokens are delivered once the contract is deployed — or, with vesting, stay locked in custody (delivery null) and are released on the token's vesting schedule",
    }),
});

// ---- answers of the free reads (OpenAPI and the MCP tools' output schemas) ----

export const tokenPageOutput = page(tokenOutput);
export const tradePageOutput = page(tradeOutput);

export const candlesOutput = z.object({
  tokenId: z.string(),
  interval: z.enum(['1m', '5m', '1h', '1d']),
  from: z.string(),
  to: z.string(),
  items: z.array(candleOutput),
});

export const holdersOutput = z.object({
  tokenId: z.string(),
  items: z.array(
    z.object({
      wallet: z.string(),
      balance: amount.meta({ description: 'what the books say it holds, locked tokens included' }),
      share: amount.meta({ description: 'of the tokens in circulation (sold on the curve, locked ones included)' }),
      locked: amount.meta({ description: "of balance, the tokens still locked in custody by the creator's vested dev buy; 0 for anyone else" }),
    }),
  ),
  indexer: indexerOutput,
});

/** Totals per network. */
export const statsOutput = z.object({
  networks: z.array(z.object({ network: networkSchema, tokens: z.number().int(), trades: z.number().int(), volumeUsd: amount, feesUsd: amount })),
});
