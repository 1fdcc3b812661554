/**
 * Request schemas (zod) and how an input is checked with them: the single source for request
 * checking, the manifest and the OpenAPI document (the answers' schemas: output-schemas.ts).
 * Amounts are decimal strings checked by the domain's money parser; unknown fields are refused.
 */
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../domain/errors.js';
import { formatUsd, MAX_USD_INPUT, parseAmount, TOKEN_DECIMALS, UINT256_LIMIT, USDC_DECIMALS } from '../../domain/money.js';
import { PRODUCTION, TESTNET } from '../../domain/network.js';

/**
 * An amount as a decimal string of at most `decimals` places and at most `most.units` smallest
 * units: one bound every amount of a kind shares, so that what both databases store and what makes
 * sense is checked before any 402 (issue 51: a 100-digit bound was charged, then failed its insert).
 */
export function decimalString(decimals: number, description: string, most: { units: bigint; says: string }) {
  return z
    .string()
    .superRefine((value, ctx) => {
      let units: bigint;
      try {
        units = parseAmount(value, decimals);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof ValidationError ? e.issues[0]!.message : 'invalid amount' });
        return;
      }
      if (units > most.units) ctx.addIssue({ code: 'custom', message: most.says });
    })
    .meta({ description, pattern: `^\\d+(\\.\\d{1,${decimals}})?$` });
}

const MOST_USD = { units: MAX_USD_INPUT, says: `must be at most ${formatUsd(MAX_USD_INPUT)} (more USD than there is)` };
const MOST_TOKENS = { units: UINT256_LIMIT - 1n, says: 'is more tokens than a uint256 holds (2^256 − 1 units of 1e-18)' };
export const usdString = (description: string) => decimalString(USDC_DECIMALS, `${description} (USDC, decimal string, ≤ 6 decimals, at most ${formatUsd(MAX_USD_INPUT)})`, MOST_USD);
export const tokenString = (description: string) => decimalString(TOKEN_DECIMALS, `${description} (tokens, decimal string, ≤ 18 decimals, below 2^256 units)`, MOST_TOKENS);

/** More than zero: an amount that moves something (a sell's tokens, a pledge). */
const positive = <S extends z.ZodString>(schema: S, decimals: number) =>
  schema.superRefine((value, ctx) => {
    try {
      if (parseAmount(value, decimals) === 0n) ctx.addIssue({ code: 'custom', message: 'must be more than 0' });
    } catch {
      // reported by the amount's own rule
    }
  });

/** Tokens a holder moves on chain: more than zero, and in units (1e-18) a uint256 a wallet can sign. */
const tokensToMove = (description: string) => positive(tokenString(description), TOKEN_DECIMALS);
export const tokenIdSchema = z.string().regex(/^tok_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a token id (tok_ + 26-character ULID)');
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
/** A wallet that can hold and sign: any address but the zero address. */
export const commentIdSchema = z.string().regex(/^cmt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a comment id (cmt_ + 26-character ULID)');
export const walletSchema = addressSchema.refine((a) => !/^0x0{40}$/.test(a), 'must not be the zero address');
export const networkSchema = z.enum([PRODUCTION, TESTNET]);

/** An uploaded image (docs/api.md "Token images"): the file as base64 or a data: URL. */
const imageUpload = z.string().meta({
  description: 'the image file as base64, or a data: URL (data:image/png;base64,…): PNG, JPEG, WebP or GIF, at most 1 MiB (told by its bytes; SVG refused); kept as WebP of at most 512 × 512 plus a 128 × 128 thumbnail',
});

/** A fair launch (docs/api.md "Fair launches"): a raise instead of the curve until it ends. */
export const fairLaunchSchema = z.strictObject({
  mode: z.literal('fair').meta({ description: 'a raise first: pledges until the end, then one buy for every pledger at one price' }),
  goalUsd: usdString('the raise fills when its usable pledges reach this'),
  durationSeconds: z.number().int().min(10).max(604_800).meta({ description: 'how long the raise takes pledges: 10 s to 7 days' }),
  maxPerWalletUsd: usdString('the most one wallet may pledge in total').optional(),
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
});

/** Who brought this trade: earns a share of its fee (docs/api.md "Fees and earnings"). */
const referrer = walletSchema.optional().meta({ description: "who referred this trade: earns a share of its fee (not the trader itself; never the service's own accounts or contracts)" });

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

export const tokenImageInput = z.strictObject({ tokenId: tokenIdSchema, image: imageUpload });

/**
 * What no text column of either database stores as given: U+0000 (PostgreSQL refuses it, a 500
 * before issue 51) and an unpaired UTF-16 surrogate (no UTF-8 spells it: the drivers would store
 * U+FFFD instead). Refused in any string of any input, before its schema is asked.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is what is refused
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/**
 * Text fields whose own rules refuse these characters with a code of their own, before any 402 (a
 * comment's text: COMMENT_CONTROL_CHARACTER, docs/api.md "Comments"): left to those rules.
 */
const ownCharacterRules = new WeakSet<z.ZodType>();

/**
 * One issue per string (or object key) of `value` no database stores, named by its path; a field of
 * `schema` (an object's) with rules of its own for these characters is left to them.
 */
export function unstorableIssues(value: unknown, prefix = '', schema?: z.ZodType): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const say = (path: string[]) => ({ path: path.join('.') || '(body)', message: 'must not contain U+0000 or an unpaired surrogate (no database stores them)' });
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const root = prefix ? [prefix] : [];
  // A walk with its own stack: a deeply nested body costs no recursion.
  const stack: [unknown, string[]][] = [[value, root]];
  while (stack.length > 0 && issues.length < 20) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) issues.push(say(path));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) issues.push(say([...path, '(key)']));
        else if (!(path === root && shape[k] && ownCharacterRules.has(shape[k]))) stack.push([inner, [...path, k]]);
      }
    }
  }
  return issues;
}

/** Parses with a schema; failures become VALIDATION_ERROR with one issue per problem. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const unstorable = unstorableIssues(value, prefix, schema);
  if (unstorable.length > 0) throw new ValidationError(unstorable);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(zodIssues(result.error, prefix));
}

/** Parses a query string: an unknown parameter is reported under its own name, one issue each. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>): z.output<S> {
  const unstorable = unstorableIssues(query);
  if (unstorable.length > 0) throw new ValidationError(unstorable);
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

/**
 * A whole number in a query string: digits only — no sign, exponent, decimal point or space, the
 * rule amounts follow (`1e2` is refused as "1e2" is for an amount); a JSON caller (an MCP tool's
 * arguments) may send it as a JSON integer.
 */
export const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number().int(), z.string().regex(/^\d{1,15}$/, 'must be a whole number: digits only (no sign, exponent, decimal point or spaces)').transform(Number)])
    .pipe(z.number().int().min(min).max(max));
const limit = (max: number, dflt: number) => wholeNumber(1, max).default(dflt);
// A query string spells a flag "true"/"false"; a JSON caller (an MCP tool's arguments) may send the boolean.
const boolString = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

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

export const tradesQuery = z.strictObject({ limit: limit(100, 50), cursor: z.string().max(512).optional() });
export const commentsQuery = z.strictObject({ limit: limit(50, 20), cursor: z.string().max(512).optional() });
/**
 * A paid comment (docs/api.md "Comments"). The text's rules (NFC, 1–500 code points, no control
 * or bidi character) are the domain's, checked before the 402 with their own codes; the schema
 * only bounds what is read.
 */
const commentText = z.string().max(10_000).meta({ description: 'plain text, 1–500 Unicode code points after NFC normalisation and trimming; newlines kept, other control characters and bidi controls refused' });
ownCharacterRules.add(commentText);
export const commentInput = z.strictObject({
  tokenId: tokenIdSchema,
  text: commentText,
  replyTo: commentIdSchema.optional().meta({ description: 'a top-level comment of the same token this one answers (one level of replies)' }),
});
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
  limit: limit(100, 20),
});

// ---- fair launches (docs/api.md "Fair launches") ----

/** A pledge's USDC ReceiveWithAuthorization to custody (GET /api/tokens/:id/pledge-authorization gives it to sign). */
export const pledgeAuthorizationSchema = tokenAuthorizationSchema.extend({
  from: addressSchema.describe('the pledger: whose USDC is collected if the raise fills, and who pays the $0.01 pledge'),
  value: uint256('USDC units (1e-6): exactly `usdAmount`'),
  validBefore: uint256('Unix seconds; at least the raise’s end plus its settling window'),
});

/** A pledge's amount: the same piece for the pledge and the read that prepares it. */
const pledgeAmount = (description: string) => positive(usdString(description), USDC_DECIMALS);

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
