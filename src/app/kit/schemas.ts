/**
 * The request schemas' primitives (zod) — amounts, ids, addresses, networks — and how an input is
 * checked with them; each room's requests are in its schemas.ts (the answers' shared shapes:
 * output-schemas.ts). The single source for request checking, the manifest and the OpenAPI document.
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
export const positive = <S extends z.ZodString>(schema: S, decimals: number) =>
  schema.superRefine((value, ctx) => {
    try {
      if (parseAmount(value, decimals) === 0n) ctx.addIssue({ code: 'custom', message: 'must be more than 0' });
    } catch {
      // reported by the amount's own rule
    }
  });

/** Tokens a holder moves on chain: more than zero, and in units (1e-18) a uint256 a wallet can sign. */
export const tokensToMove = (description: string) => positive(tokenString(description), TOKEN_DECIMALS);
export const tokenIdSchema = z.string().regex(/^tok_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a token id (tok_ + 26-character ULID)');
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
export const walletSchema = addressSchema.refine((a) => !/^0x0{40}$/.test(a), 'must not be the zero address');
export const networkSchema = z.enum([PRODUCTION, TESTNET]);

export const uint256 = (what: string) =>
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
export const ownCharacterRules = new WeakSet<z.ZodType>();

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
export const limit = (max: number, dflt: number) => wholeNumber(1, max).default(dflt);
// A query string spells a flag "true"/"false"; a JSON caller (an MCP tool's arguments) may send the boolean.
export const boolString = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const eventsQuery = z.strictObject({ tokenId: tokenIdSchema.optional(), network: networkSchema.optional() });
