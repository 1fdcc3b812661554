/**
 * Tokens: creation rules (docs/api.md "Resources") and the one state transition ACTIVE → GRADUATED
 * (docs/api.md "Curve and prices").
 */
import {
  checkCurveParams,
  initialCurveState,
  isSoldOut,
  type CurveParams,
  type CurveState,
} from './curve.js';
import { PENDING_DEPLOYMENT, type DeploymentSummary } from './deployment.js';
import { feeBpsAt, type CreatorSplit, type FeeMode } from './fees.js';
import type { PoolSummary } from './graduation.js';
import { InvariantViolation, TokenGraduated, ValidationError, type ValidationIssue } from './errors.js';
import type { Network } from './network.js';
import { notPublicHost } from './public-host.js';
import type { DevVesting } from './vesting.js';

export type TokenState = 'ACTIVE' | 'GRADUATED';

export interface Token {
  readonly tokenId: string;
  readonly network: Network;
  readonly name: string;
  readonly symbol: string;
  readonly description: string | null;
  /** The image: the service's own copy of an upload (docs/decisions/0049), or an https URL named at creation. */
  readonly imageUrl: string | null;
  /** The service's 128 × 128 thumbnail of an uploaded image; null for an image named by URL, or none. */
  readonly thumbnailUrl: string | null;
  /** Checksummed address of the creator (the payer of the create payment). */
  readonly creator: string;
  /** Where the token's people meet: handles and a site, shown as links. */
  readonly links: TokenLinks;
  /** The address that brought the token, named at creation: it earns a share of every fee (null: none). */
  readonly platformReferrer: string | null;
  /**
   * The anti-snipe launch fee fixed at creation: the fee starts at `startBps` and falls linearly
   * to `params.feeBps` over `decayMs` after trading starts (`tradingSince`); null when the token has none.
   */
  readonly launchFee: TokenLaunchFee | null;
  /** Who earns the creator share of its fees, fixed at creation: the creator's wallets, or each trade's trader (`cashback`). */
  readonly feeMode: FeeMode;
  /**
   * The wallets the creator share is split among (docs/api.md "Fees and earnings"), as the creator
   * last named them; null: the creator alone. Never set on a cashback token.
   */
  readonly creatorSplits: readonly CreatorSplit[] | null;
  /** The creator's dev buy, locked in custody and released on a schedule (vesting.ts); null: none. */
  readonly vesting: DevVesting | null;
  readonly state: TokenState;
  /** `fair`: created with a raise (raise.ts) instead of trading at once (docs/api.md "Fair launches"). */
  readonly launchMode: LaunchMode;
  /**
   * When trading started: its creation, or a fair launch's settled raise; null while a fair
   * launch's raise has not settled (nothing trades it: TOKEN_RAISING). The launch fee decays from here.
   */
  readonly tradingSince: Date | null;
  readonly params: CurveParams;
  readonly curve: CurveState;
  readonly createdAt: Date;
  readonly graduatedAt: Date | null;
  /** The ERC-20's address (CREATE2, known from the start); null for a token from before 1.1. */
  readonly address: string | null;
  readonly deployment: DeploymentSummary;
  /** The Uniswap v2 pool graduation seeds (docs/api.md "Graduation and the Uniswap v2 pool"); null while the token is on its curve. */
  readonly pool: PoolSummary | null;
}

export interface NewTokenInput {
  name?: unknown;
  symbol?: unknown;
  description?: unknown;
  imageUrl?: unknown;
  website?: unknown;
  twitter?: unknown;
  telegram?: unknown;
}

/** A site (an https URL) and two handles (without `@`); null where none was given. */
export interface TokenLinks {
  readonly website: string | null;
  readonly twitter: string | null;
  readonly telegram: string | null;
}

export const NO_LINKS: TokenLinks = { website: null, twitter: null, telegram: null };

export type LaunchMode = 'curve' | 'fair';

export interface TokenLaunchFee {
  readonly startBps: bigint;
  readonly decayMs: bigint;
}

type FeeClock = Pick<Token, 'params' | 'launchFee' | 'tradingSince'>;

/**
 * The trading fee in force on `token` at `now`: its launch fee while it decays from the moment
 * trading started (a fair launch's: its raise's end), then its base fee.
 */
export function feeBpsOf(token: FeeClock, now: Date): bigint {
  if (!token.launchFee) return token.params.feeBps;
  const since = token.tradingSince ?? now;
  return feeBpsAt({ startBps: token.launchFee.startBps, baseBps: token.params.feeBps, decayMs: token.launchFee.decayMs }, BigInt(now.getTime() - since.getTime()));
}

/** The curve parameters a trade at `now` is priced with: the token's, at the fee in force. */
export function pricingParams(token: FeeClock, now: Date): CurveParams {
  const feeBps = feeBpsOf(token, now);
  return feeBps === token.params.feeBps ? token.params : { ...token.params, feeBps };
}


export interface TokenMetadata {
  name: string;
  symbol: string;
  description: string | null;
  imageUrl: string | null;
  thumbnailUrl: string | null;
  links: TokenLinks;
}

/** A token's image as the service keeps it: its own copy and thumbnail (absolute URLs). */
export interface TokenImageUrls {
  imageUrl: string;
  thumbnailUrl: string;
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
  // Checked as given, upper-cased only after: `ß` would become `SS` and `ı` (dotless i) `I`.
  if (!/^[A-Za-z0-9]+$/.test(value)) {
    issues.push({ path: 'symbol', message: 'must contain only letters A-Z and digits 0-9' });
    return null;
  }
  const symbol = value.toUpperCase();
  if (symbol.length > SYMBOL_MAX) {
    issues.push({ path: 'symbol', message: `must be at most ${SYMBOL_MAX} characters` });
    return null;
  }
  return symbol;
}

function checkHttpsUrl(issues: ValidationIssue[], path: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a string' });
    return null;
  }
  if (value.length > IMAGE_URL_MAX) {
    issues.push({ path, message: `must be at most ${IMAGE_URL_MAX} characters` });
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path, message: 'must be an absolute https URL' });
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || /\s/.test(value)) {
    issues.push({ path, message: 'must be an https URL without credentials or spaces' });
    return null;
  }
  // Every visitor's browser follows it: never to its own machine or network (decision 0065).
  const notPublic = notPublicHost(url.hostname);
  if (notPublic) {
    issues.push({ path, message: `must be on a public host: ${url.hostname} ${notPublic}` });
    return null;
  }
  return url.href;
}

/**
 * A handle given as `name`, `@name` or a profile URL on one of `hosts` (`https://x.com/name`):
 * kept as `name`, checked against the service's own rule for it.
 */
function checkHandle(issues: ValidationIssue[], path: string, value: unknown, hosts: readonly string[], rule: RegExp, says: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a string' });
    return null;
  }
  let handle = value.trim();
  if (/^https?:\/\//i.test(handle)) {
    let url: URL | null;
    try {
      url = new URL(handle);
    } catch {
      url = null;
    }
    const host = url?.hostname.toLowerCase().replace(/^www\./, '');
    const segments = url?.pathname.split('/').filter(Boolean) ?? [];
    if (!url || !host || !hosts.includes(host) || segments.length !== 1 || url.search !== '' || url.hash !== '') {
      issues.push({ path, message: `must be a handle or a profile URL on ${hosts[0]}` });
      return null;
    }
    handle = segments[0]!;
  }
  handle = handle.replace(/^@/, '');
  if (!rule.test(handle)) {
    issues.push({ path, message: says });
    return null;
  }
  return handle;
}

const TWITTER_HANDLE = /^[A-Za-z0-9_]{1,15}$/;
const TELEGRAM_HANDLE = /^[A-Za-z][A-Za-z0-9_]{3,31}$/;

function checkLinks(issues: ValidationIssue[], input: NewTokenInput): TokenLinks {
  return {
    website: checkHttpsUrl(issues, 'website', input.website),
    twitter: checkHandle(issues, 'twitter', input.twitter, ['x.com', 'twitter.com'], TWITTER_HANDLE, 'must be an X (Twitter) handle: 1–15 letters, digits or _'),
    telegram: checkHandle(issues, 'telegram', input.telegram, ['t.me', 'telegram.me'], TELEGRAM_HANDLE, 'must be a Telegram username: 5–32 letters, digits or _, starting with a letter'),
  };
}

/** The links a token shows: the site as given, the handles as profile URLs. */
export function linkUrls(links: TokenLinks): TokenLinks {
  return {
    website: links.website,
    twitter: links.twitter === null ? null : `https://x.com/${links.twitter}`,
    telegram: links.telegram === null ? null : `https://t.me/${links.telegram}`,
  };
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
  const imageUrl = checkHttpsUrl(issues, 'imageUrl', input.imageUrl);
  const links = checkLinks(issues, input);
  if (issues.length > 0 || name === null || symbol === null) throw new ValidationError(issues);
  return { name, symbol, description, imageUrl, thumbnailUrl: null, links };
}

export function newToken(args: {
  tokenId: string;
  network: Network;
  metadata: TokenMetadata;
  creator: string;
  /** Named at creation (an address other than the creator), or null. */
  platformReferrer?: string | null;
  params: CurveParams;
  /** The launch fee to start at (kept only when it starts above the base fee and decays over time). */
  launchFee?: TokenLaunchFee | null;
  /** Where the token's contract will be deployed. */
  address: string;
  now: Date;
  /** A fair launch: it trades once its raise settles (`opensTrading`). */
  launchMode?: LaunchMode;
  feeMode?: FeeMode;
  /** Checked already (creatorSplitsProblem); null or absent: the creator alone. */
  creatorSplits?: readonly CreatorSplit[] | null;
}): Token {
  if (args.feeMode === 'cashback' && args.creatorSplits) throw new InvariantViolation('a cashback token has no creator splits');
  const params = checkCurveParams(args.params);
  return {
    tokenId: args.tokenId,
    network: args.network,
    ...args.metadata,
    creator: args.creator,
    platformReferrer: args.platformReferrer ?? null,
    launchFee: args.launchFee && args.launchFee.decayMs > 0n && args.launchFee.startBps > params.feeBps ? args.launchFee : null,
    feeMode: args.feeMode ?? 'creator',
    creatorSplits: args.creatorSplits ?? null,
    vesting: null,
    state: 'ACTIVE',
    launchMode: args.launchMode ?? 'curve',
    tradingSince: args.launchMode === 'fair' ? null : args.now,
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

/** A fair launch's token once its raise settled (filled or failed): it trades from `now`, its launch fee decaying from then. */
export function opensTrading(token: Token, now: Date): Token {
  if (token.tradingSince !== null) throw new InvariantViolation(`token ${token.tokenId} trades already`);
  return { ...token, tradingSince: now };
}

/** The wallets that earn a token's creator share and their parts; empty on a cashback token (each trader earns its own). */
export function creatorEarners(token: Pick<Token, 'creator' | 'creatorSplits' | 'feeMode'>): readonly CreatorSplit[] {
  if (token.feeMode === 'cashback') return [];
  return token.creatorSplits ?? [{ wallet: token.creator, bps: 10_000 }];
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
