/**
 * Tokens: creation rules (SPEC §4) and the one state transition ACTIVE → GRADUATED (SPEC §6).
 */
import {
  checkCurveParams,
  initialCurveState,
  isSoldOut,
  type CurveParams,
  type CurveState,
} from './curve.js';
import { PENDING_DEPLOYMENT, type DeploymentSummary } from './deployment.js';
import type { PoolSummary } from './graduation.js';
import { InvariantViolation, TokenGraduated, ValidationError, type ValidationIssue } from './errors.js';
import type { Network } from './network.js';

export type TokenState = 'ACTIVE' | 'GRADUATED';

export interface Token {
  readonly tokenId: string;
  readonly network: Network;
  readonly name: string;
  readonly symbol: string;
  readonly description: string | null;
  readonly imageUrl: string | null;
  /** Checksummed address of the creator (the payer of the create payment). */
  readonly creator: string;
  readonly state: TokenState;
  readonly params: CurveParams;
  readonly curve: CurveState;
  readonly createdAt: Date;
  readonly graduatedAt: Date | null;
  /** The ERC-20's address (CREATE2, known from the start); null for a token from before 1.1. */
  readonly address: string | null;
  readonly deployment: DeploymentSummary;
  /** The Uniswap v2 pool graduation seeds (SPEC §14); null while the token is on its curve. */
  readonly pool: PoolSummary | null;
}

export interface NewTokenInput {
  name?: unknown;
  symbol?: unknown;
  description?: unknown;
  imageUrl?: unknown;
}

export interface TokenMetadata {
  name: string;
  symbol: string;
  description: string | null;
  imageUrl: string | null;
}

export const NAME_MAX = 32;
export const SYMBOL_MAX = 10;
export const DESCRIPTION_MAX = 500;
export const IMAGE_URL_MAX = 2048;

// Characters that hide or reorder text: C0/C1 controls, bidi embeddings/overrides/isolates and
// marks, zero-width characters and the BOM. They let a token impersonate another one.
const CONTROL = /\p{Cc}/u;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u180E]/u;

function codePoints(s: string): number {
  return [...s].length;
}

function checkText(
  issues: ValidationIssue[],
  path: string,
  value: unknown,
  { max, required, allowNewlines }: { max: number; required: boolean; allowNewlines: boolean },
): string | null {
  if (value === undefined || value === null) {
    if (required) issues.push({ path, message: 'is required' });
    return null;
  }
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a string' });
    return null;
  }
  const normalized = value.normalize('NFC');
  // Checked before trimming: trim() would silently drop a leading BOM.
  const controls = allowNewlines ? normalized.replace(/\r?\n/g, '') : normalized;
  const text = normalized.trim();
  if (text.length === 0) {
    if (required) issues.push({ path, message: 'must not be empty' });
    return null;
  }
  if (CONTROL.test(controls)) issues.push({ path, message: 'must not contain control characters' });
  else if (BIDI.test(normalized)) issues.push({ path, message: 'must not contain bidirectional override characters' });
  else if (ZERO_WIDTH.test(normalized)) issues.push({ path, message: 'must not contain zero-width characters' });
  else if (codePoints(text) > max) issues.push({ path, message: `must be at most ${max} characters` });
  else return text;
  return null;
}

function checkSymbol(issues: ValidationIssue[], value: unknown): string | null {
  if (typeof value !== 'string') {
    issues.push({ path: 'symbol', message: value === undefined ? 'is required' : 'must be a string' });
    return null;
  }
  const symbol = value.normalize('NFC').toUpperCase();
  if (!/^[A-Z0-9]+$/.test(symbol)) {
    issues.push({ path: 'symbol', message: 'must contain only letters A-Z and digits 0-9' });
    return null;
  }
  if (symbol.length > SYMBOL_MAX) {
    issues.push({ path: 'symbol', message: `must be at most ${SYMBOL_MAX} characters` });
    return null;
  }
  return symbol;
}

function checkImageUrl(issues: ValidationIssue[], value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    issues.push({ path: 'imageUrl', message: 'must be a string' });
    return null;
  }
  if (value.length > IMAGE_URL_MAX) {
    issues.push({ path: 'imageUrl', message: `must be at most ${IMAGE_URL_MAX} characters` });
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path: 'imageUrl', message: 'must be an absolute https URL' });
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || /\s/.test(value)) {
    issues.push({ path: 'imageUrl', message: 'must be an https URL without credentials or spaces' });
    return null;
  }
  return url.href;
}

/** Validates and normalises creation input; every problem is reported at once. */
export function validateTokenMetadata(input: NewTokenInput): TokenMetadata {
  const issues: ValidationIssue[] = [];
  const name = checkText(issues, 'name', input.name, { max: NAME_MAX, required: true, allowNewlines: false });
  const symbol = checkSymbol(issues, input.symbol);
  const description = checkText(issues, 'description', input.description, {
    max: DESCRIPTION_MAX,
    required: false,
    allowNewlines: true,
  });
  const imageUrl = checkImageUrl(issues, input.imageUrl);
  if (issues.length > 0 || name === null || symbol === null) throw new ValidationError(issues);
  return { name, symbol, description, imageUrl };
}

export function newToken(args: {
  tokenId: string;
  network: Network;
  metadata: TokenMetadata;
  creator: string;
  params: CurveParams;
  /** Where the token's contract will be deployed. */
  address: string;
  now: Date;
}): Token {
  const params = checkCurveParams(args.params);
  return {
    tokenId: args.tokenId,
    network: args.network,
    ...args.metadata,
    creator: args.creator,
    state: 'ACTIVE',
    params,
    curve: initialCurveState(params),
    createdAt: args.now,
    graduatedAt: null,
    address: args.address,
    deployment: PENDING_DEPLOYMENT,
    pool: null,
  };
}

/**
 * A token from before tokens went on chain gets the address its contract will be deployed at;
 * its deployment starts PENDING. A token that has an address keeps it.
 */
export function withAddress(token: Token, address: string): Token {
  if (token.address !== null) throw new InvariantViolation(`token ${token.tokenId} already has an address`);
  return { ...token, address, deployment: PENDING_DEPLOYMENT };
}

export function assertTradable(token: Token): void {
  if (token.state === 'GRADUATED') throw new TokenGraduated(token.tokenId);
}

/**
 * A graduated token whose pool could not be created (FAILED) is not a dead token: its curve
 * takes sells again, at the curve's price, from the reserve that never left custody, so every
 * holder keeps a way out (decision 0023). Buys stay closed.
 */
export function curveOpenForSells(token: Token): boolean {
  return token.state === 'GRADUATED' && token.pool?.state === 'FAILED';
}

/**
 * The token after a trade moved its curve. Selling the last curve token graduates it; that is
 * the only state transition and it happens once.
 */
export function withCurve(token: Token, curve: CurveState, now: Date): Token {
  if (!curveOpenForSells(token)) assertTradable(token);
  else if (curve.tokensSold > token.curve.tokensSold) throw new TokenGraduated(token.tokenId); // sells only
  if (curve.tokensSold > token.params.curveSupply) throw new InvariantViolation('curve oversold');
  if (isSoldOut(token.params, curve)) {
    return { ...token, curve, state: 'GRADUATED', graduatedAt: now };
  }
  return { ...token, curve };
}
