/**
 * The only reader of the environment (docs/operations.md). Every variable is checked at start; a bad
 * value stops the service with a message naming it.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { checkCurveParams } from '../domain/curve.js';
import { parseTokens, parseUsd } from '../domain/money.js';
import { PRODUCTION, TESTNET } from '../domain/network.js';
import { compareUsdPrices, isPricedAsset, parseUsdPrice, type PricedAsset, type UsdPrice } from '../domain/usd-price.js';
import { DEFAULT_SETTINGS } from './default-settings.js';
import type { ProviderLimit } from './pricing/price-board.js';
import {
  COINGECKO_DEMO_LIMIT,
  DEFAULT_PROVIDER_LIMITS,
  DEVNET_FIXED_PRICES,
  DEVNET_QUOTE_PROVIDERS,
  QUOTE_PROVIDER_NAMES,
  REAL_QUOTE_PROVIDERS,
  type QuoteProviderName,
} from './pricing/provider-defaults.js';
import type { Settings } from './settings.js';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');
const usd = z.string().transform((v, ctx) => {
  try {
    return parseUsd(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a USD decimal string' });
    return z.NEVER;
  }
});
const tokens = z.string().transform((v, ctx) => {
  try {
    return parseTokens(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a token decimal string' });
    return z.NEVER;
  }
});
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const price = z.string().transform((v, ctx) => {
  try {
    return parseUsdPrice(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a positive decimal price, e.g. "0.98"' });
    return z.NEVER;
  }
});
const providerList = z.string().transform((v, ctx) => {
  const names = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(QUOTE_PROVIDER_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    ctx.addIssue({ code: 'custom', message: `must list quote providers among ${QUOTE_PROVIDER_NAMES.join(', ')}` });
    return z.NEVER;
  }
  return [...new Set(names)] as QuoteProviderName[];
});
/** "points/seconds" or "points/seconds/queue", e.g. "30/10/5". */
const providerLimit = z.string().transform((v, ctx) => {
  const m = /^(\d+)\/(\d+)(?:\/(\d+))?$/.exec(v.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    ctx.addIssue({ code: 'custom', message: 'must be points/seconds[/queue], e.g. "30/10/5"' });
    return z.NEVER;
  }
  return { points: Number(m[1]), durationSeconds: Number(m[2]), maxQueueSize: m[3] === undefined ? undefined : Number(m[3]) };
});
/** "USDC=1,EURC=1.08". */
const fixedPrices = z.string().transform((v, ctx) => {
  const prices: Partial<Record<PricedAsset, UsdPrice>> = {};
  for (const entry of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [asset, value] = entry.split('=').map((s) => s.trim());
    try {
      if (!isPricedAsset(asset)) throw new Error();
      prices[asset] = parseUsdPrice(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be ASSET=price pairs, e.g. "USDC=1,EURC=1.08"' });
      return z.NEVER;
    }
  }
  return prices;
});

/** "*" or a comma-separated list of origins, e.g. "https://app.example.com,http://localhost:5173". */
const corsOrigins = z.string().transform((v, ctx) => {
  if (v.trim() === '*') return '*' as const;
  const origins: string[] = [];
  for (const entry of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: `must be "*" or origins (scheme://host[:port], no path), e.g. "https://app.example.com"; not "${entry}"` });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  return origins;
});

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:|postgres(ql)?:\/\/)/, 'must be sqlite:<path> or postgres://…')
    .optional(),
  REDIS_URL: z.string().optional(),
  FACILITATOR_URL: z.url().optional(),
  RPC_URL_8453: z.string().optional(),
  RPC_URL_84532: z.string().optional(),
  DEVNET_PORT: z.coerce.number().int().min(1).max(65534).default(8545),
  DEVNET_IDLE_BLOCK_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  PAY_TO_8453: address.optional(),
  PAY_TO_84532: address.optional(),
  TREASURY_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key').optional(),
  SETTLEMENT_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key').optional(),
  LAUNCH_FACTORY_8453: address.optional(),
  LAUNCH_FACTORY_84532: address.optional(),
  UNISWAP_V2_ROUTER_8453: address.optional(),
  UNISWAP_V2_FACTORY_8453: address.optional(),
  UNISWAP_V2_ROUTER_84532: address.optional(),
  UNISWAP_V2_FACTORY_84532: address.optional(),
  GRADUATION_FEE_USD: usd.optional(),
  WORKERS: flag.default(true),
  ACCEPT_SETTINGS_CHANGE: z
    .string()
    .regex(/^[A-Za-z0-9_ ]+(,[A-Za-z0-9_ ]+)*$/, 'must be setting names separated by commas, e.g. "PAY_TO_8453,LAUNCH_FACTORY_8453"')
    .optional(),
  RECONCILER_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  INDEXER_CONFIRMATIONS: z.coerce.number().int().min(0).max(10_000).optional(),
  INDEXER_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(2_000),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  RATE_LIMIT_FREE_PER_MINUTE: z.coerce.number().int().min(0).default(100),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .refine((v) => new URL(v).pathname === '/' && !new URL(v).search, 'must be an origin (scheme://host[:port]), no path')
    .optional(),
  CORS_ORIGINS: corsOrigins.optional(),
  INFO_ACCESS_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  MAX_EVENT_STREAMS: z.coerce.number().int().min(1).default(1_000),
  MAX_EVENT_STREAMS_PER_CLIENT: z.coerce.number().int().min(1).default(10),
  NETWORK_DETECTION_FAIL_CLOSED: flag.default(false),
  MAX_BUY_USD: usd.optional(),
  MIN_BUY_USD: usd.optional(),
  FEE_BPS: z.coerce.number().int().min(0).max(9999).optional(),
  CREATOR_FEE_SHARE_BPS: z.coerce.number().int().min(0).max(10_000).default(5_000),
  PLATFORM_REFERRER_FEE_SHARE_BPS: z.coerce.number().int().min(0).max(10_000).default(2_000),
  TRADE_REFERRER_FEE_SHARE_BPS: z.coerce.number().int().min(0).max(10_000).default(1_000),
  EARNINGS_PAYOUT_MIN_USD: usd.optional(),
  LAUNCH_FEE_START_BPS: z.coerce.number().int().min(0).max(9999).default(5_000),
  LAUNCH_FEE_DECAY_SECONDS: z.coerce.number().int().min(0).max(86_400).default(20),
  CREATE_PRICE_USD: usd.optional(),
  SELL_PRICE_USD: usd.optional(),
  INFO_PRICE_USD: usd.optional(),
  CURVE_TOTAL_SUPPLY: tokens.optional(),
  CURVE_SUPPLY: tokens.optional(),
  CURVE_VIRTUAL_USD: usd.optional(),
  CURVE_VIRTUAL_TOKENS: tokens.optional(),
  QUOTE_PROVIDERS: providerList.optional(),
  QUOTE_MAX_SPREAD_BPS: z.coerce.number().int().min(0).max(10_000).default(100),
  USDC_DEPEG_FLOOR: price.optional(),
  QUOTE_CACHE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(15),
  QUOTE_DEADLINE_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  QUOTE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  QUOTE_BREAKER_FAILURES: z.coerce.number().int().min(1).max(100).default(3),
  QUOTE_BREAKER_OPEN_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  QUOTE_LIMIT_CHAINLINK: providerLimit.optional(),
  QUOTE_LIMIT_COINBASE: providerLimit.optional(),
  QUOTE_LIMIT_COINGECKO: providerLimit.optional(),
  QUOTE_LIMIT_PYTH: providerLimit.optional(),
  QUOTE_LIMIT_FIXED: providerLimit.optional(),
  QUOTE_FIXED_PRICES: fixedPrices.optional(),
  COINBASE_API_URL: z.url().optional(),
  COINGECKO_API_URL: z.url().optional(),
  COINGECKO_API_KEY: z.string().min(1).optional(),
  PYTH_HERMES_URL: z.url().optional(),
  PYTH_API_KEY: z.string().min(1).optional(),
});

/** The quote router and its sources (docs/pricing.md); read by the composition root. */
export interface QuoteConfig {
  providers: QuoteProviderName[];
  maxSpreadBps: bigint;
  cacheMs: number;
  deadlineMs: number;
  timeoutMs: number;
  breaker: { failures: number; openMs: number };
  limits: Record<QuoteProviderName, ProviderLimit>;
  fixedPrices: Partial<Record<PricedAsset, UsdPrice>>;
  coinbaseUrl: string | undefined;
  coingeckoUrl: string | undefined;
  coingeckoApiKey: string | undefined;
  pythUrl: string | undefined;
  pythApiKey: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `sqlite:<path>` (default: DATA_DIR/service.db) or `postgres://…`. */
  databaseUrl: string;
  redisUrl: string | undefined;
  facilitatorUrl: string | undefined;
  rpcUrls: { [PRODUCTION]: string[] | undefined; [TESTNET]: string[] | undefined };
  devnetPort: number;
  /** The devnet mines an empty block after this much idleness (0: never), like a real chain. */
  devnetIdleBlockMs: number;
  treasuryKey: `0x${string}` | undefined;
  settlementKey: `0x${string}` | undefined;
  /** The LaunchFactory per network on real RPCs; unset = the devnet's (docs/api.md "Tokens on chain"). */
  launchFactories: { [PRODUCTION]: `0x${string}` | undefined; [TESTNET]: `0x${string}` | undefined };
  /**
   * Uniswap v2 per network on real RPCs (docs/api.md "Graduation and the Uniswap v2 pool"): Base defaults to Uniswap's published
   * deployment; a network without one keeps graduated tokens waiting for their pool.
   */
  uniswapV2: { [PRODUCTION]: UniswapV2Config | undefined; [TESTNET]: UniswapV2Config | undefined };
  /** Chain access: the embedded devnet unless RPC URLs are given. */
  chain: 'devnet' | 'rpc';
  /** Run the workers (the outboxes, the reconciler, the transfer indexer, the earnings payer, the purgers) in this process. */
  workers: boolean;
  /** Shared settings this process records over what the database holds (docs/decisions/0032). */
  acceptSettingsChange: string[];
  /** How long a payment is left to its own request before the reconciler takes it. */
  reconcilerGraceMs: number;
  /**
   * The transfer indexer (docs/decisions/0020): blocks it stays below the head (0 on the devnet,
   * 10 on real networks by default) and blocks per eth_getLogs call.
   */
  indexer: { confirmations: number; blockRange: number };
  /** Named settings no environment variable reaches (TUNABLES). */
  tunables: Tunables;
  trustProxy: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** `auto`: readable lines on a terminal, JSON lines otherwise (docs/operations.md "Logs"). */
  logFormat: 'auto' | 'json' | 'pretty';
  rateLimitPerMinute: number;
  /** Concurrent /api/events streams in total and per client address. */
  /**
   * The origin clients reach the service at (behind proxies too): discovery documents name it and
   * Sign-In-With-X proofs must be bound to it. Unset: the request's own origin for documents.
   */
  publicUrl: string | undefined;
  /** Origins besides the service's own whose pages may call the API from a browser (docs/api.md "Browsers and other origins"). */
  corsOrigins: '*' | string[];
  /** How long token_info bought once stays free to the same wallet, proven by Sign-In-With-X (0: never). */
  infoAccessSeconds: number;
  maxEventStreams: number;
  maxEventStreamsPerClient: number;
  detectionFailClosed: boolean;
  quotes: QuoteConfig;
  settings: Settings;
}

/**
 * The workers' pace and limits, and how long a retried payment waits (docs/architecture.md,
 * "Workers"): named settings with these defaults, deliberately not read from the environment —
 * docs/operations.md promises their values, and nothing about a deployment calls for others.
 */
export interface Tunables {
  /** A request carrying a payment another request is still applying waits this long for its answer, then gets 202. */
  replayWaitMs: number;
  workers: {
    /** Pause between the end of one pass of every worker and the start of the next. */
    intervalMs: number;
    /** The outbox engine (payouts, deployments, deliveries, graduations). */
    outbox: {
      /** Sends an item gets before it is FAILED for an operator. */
      maxAttempts: number;
      /** Delay before the n-th retry: backoffBaseMs · 2^(n−1), at most backoffMaxMs. */
      backoffBaseMs: number;
      backoffMaxMs: number;
      /** How long a SENT item waits before its status is read again. */
      confirmPollMs: number;
      /** A SENT item still not mined after this long gets the nonce gap below it filled. */
      stuckAfterMs: number;
    };
    /** The reconciler refunds a settled payment whose operation still fails this long after settlement. */
    refundAfterMs: number;
    /** Quotes are purged this long after they expire (a late reconciler still finds them), at most every quotePurgeIntervalMs once no backlog is left. */
    quoteRetentionMs: number;
    quotePurgeIntervalMs: number;
    /** Rows a purge deletes per pass (quotes, spent Sign-In-With-X nonces, expired access grants). */
    purgeBatch: number;
    /** Most deliveries one custody transaction carries (docs/decisions/0035); below 2, each is sent alone. */
    deliveryBatchMax: number;
  };
}

export const TUNABLES: Tunables = {
  replayWaitMs: 10_000,
  workers: {
    intervalMs: 1_000,
    outbox: { maxAttempts: 5, backoffBaseMs: 5_000, backoffMaxMs: 300_000, confirmPollMs: 1_000, stuckAfterMs: 60_000 },
    refundAfterMs: 15 * 60_000,
    quoteRetentionMs: 10 * 60_000,
    quotePurgeIntervalMs: 60_000,
    purgeBatch: 1_000,
    deliveryBatchMax: 100,
  },
};

export interface UniswapV2Config {
  router: `0x${string}`;
  factory: `0x${string}`;
}

/** Uniswap's published v2 on Base mainnet (docs.uniswap.org "V2 Deployment Addresses"; docs.base.org "Ecosystem Contracts"). */
export const BASE_UNISWAP_V2: UniswapV2Config = {
  factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
  router: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24',
};

export class ConfigError extends Error {}

/** Settings whose values are secrets or may carry credentials: a refusal names them, never echoes them. */
const SECRET = /KEY|URL/;

/**
 * One sentence per bad setting, naming it, what it holds and what it must be — what an operator
 * reads in place of zod's issue list (`PORT: Invalid input: expected number, received NaN`).
 */
function refusal(key: string, value: string | undefined, issue: z.core.$ZodIssue): string {
  const shown = value === undefined || SECRET.test(key) || value.length > 60 ? key : `${key} is ${JSON.stringify(value)}, but it`;
  return `Invalid configuration: ${shown} ${requirement(key, issue)}.`;
}

function requirement(key: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'custom' || (issue.code === 'invalid_format' && issue.format === 'regex')) return issue.message;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return 'must be a URL';
  let field = envSchema.shape[key as keyof typeof envSchema.shape] as z.ZodType | undefined;
  while (field && 'unwrap' in field && typeof field.unwrap === 'function') field = (field.unwrap as () => z.ZodType)();
  if (field instanceof z.ZodNumber) {
    const { minValue: min, maxValue: max } = field;
    const kind = field.isInt ? 'a whole number' : 'a number';
    if (min !== null && max !== null && max < Number.MAX_SAFE_INTEGER) return `must be ${kind} from ${min} to ${max}`;
    if (min !== null) return `must be ${kind}, at least ${min}`;
    return `must be ${kind}`;
  }
  return issue.message.replace(/^Invalid input: /, 'must be valid: ');
}

const CURVE_SETTINGS = {
  totalSupply: 'CURVE_TOTAL_SUPPLY',
  curveSupply: 'CURVE_SUPPLY',
  initialVirtualUsd: 'CURVE_VIRTUAL_USD',
  initialVirtualTokens: 'CURVE_VIRTUAL_TOKENS',
  feeBps: 'FEE_BPS',
};

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // `PORT=` would coerce to 0, a random port nobody asked for: refused like any other non-number.
  if (env.PORT?.trim() === '') throw new ConfigError('Invalid configuration: PORT is "", but it must be a whole number from 0 to 65535 (unset it for 3000).');
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const named = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '');
      if (!named.has(key)) named.set(key, refusal(key, env[key], issue));
    }
    throw new ConfigError([...named.values()].join('\n'));
  }
  const e = parsed.data;
  const d = DEFAULT_SETTINGS;
  let curve;
  try {
    curve = checkCurveParams({
      totalSupply: e.CURVE_TOTAL_SUPPLY ?? d.curve.totalSupply,
      curveSupply: e.CURVE_SUPPLY ?? d.curve.curveSupply,
      initialVirtualUsd: e.CURVE_VIRTUAL_USD ?? d.curve.initialVirtualUsd,
      initialVirtualTokens: e.CURVE_VIRTUAL_TOKENS ?? d.curve.initialVirtualTokens,
      feeBps: e.FEE_BPS === undefined ? d.curve.feeBps : BigInt(e.FEE_BPS),
    });
  } catch (err) {
    // The curve names its parameters; the operator knows them by their settings.
    const named = Object.entries(CURVE_SETTINGS).reduce((m, [param, setting]) => m.replace(new RegExp(`\\b${param}\\b`, 'g'), setting), (err as Error).message);
    throw new ConfigError(`Invalid configuration: ${named.replace(/^invalid curve parameters: /, '')}.`);
  }
  const feeShares = {
    creatorBps: BigInt(e.CREATOR_FEE_SHARE_BPS),
    platformReferrerBps: BigInt(e.PLATFORM_REFERRER_FEE_SHARE_BPS),
    tradeReferrerBps: BigInt(e.TRADE_REFERRER_FEE_SHARE_BPS),
  };
  if (feeShares.creatorBps + feeShares.platformReferrerBps + feeShares.tradeReferrerBps > 10_000n) {
    throw new ConfigError('Invalid configuration: CREATOR_FEE_SHARE_BPS + PLATFORM_REFERRER_FEE_SHARE_BPS + TRADE_REFERRER_FEE_SHARE_BPS must not exceed 10000 (they are shares of the fee).');
  }
  if ((e.RPC_URL_8453 === undefined) !== (e.RPC_URL_84532 === undefined)) {
    throw new ConfigError('Invalid configuration: set both RPC_URL_8453 and RPC_URL_84532, or neither (embedded devnet).');
  }
  if (e.RPC_URL_8453 && (!e.PAY_TO_8453 || !e.PAY_TO_84532)) {
    // The default treasury is anvil's account #0, whose key is public: real money must never go there.
    throw new ConfigError('Invalid configuration: PAY_TO_8453 and PAY_TO_84532 are required with real RPC URLs.');
  }
  if (e.RPC_URL_8453 && (!e.LAUNCH_FACTORY_8453 || !e.LAUNCH_FACTORY_84532)) {
    throw new ConfigError('Invalid configuration: LAUNCH_FACTORY_8453 and LAUNCH_FACTORY_84532 are required with real RPC URLs (they deploy launched tokens; docs/operations.md).');
  }
  for (const id of ['8453', '84532'] as const) {
    if ((e[`UNISWAP_V2_ROUTER_${id}`] === undefined) !== (e[`UNISWAP_V2_FACTORY_${id}`] === undefined)) {
      throw new ConfigError(`Invalid configuration: set both UNISWAP_V2_ROUTER_${id} and UNISWAP_V2_FACTORY_${id}, or neither.`);
    }
  }
  if (e.RPC_URL_8453 && !e.TREASURY_KEY) {
    throw new ConfigError('Invalid configuration: TREASURY_KEY is required with real RPC URLs (it sends payouts).');
  }
  if (e.USDC_DEPEG_FLOOR && compareUsdPrices(e.USDC_DEPEG_FLOOR, parseUsdPrice('1')) > 0) {
    throw new ConfigError('Invalid configuration: USDC_DEPEG_FLOOR must be at most 1.');
  }
  const realChain = Boolean(e.RPC_URL_8453 || e.RPC_URL_84532);
  const limitOf = (name: QuoteProviderName, over: { points: number; durationSeconds: number; maxQueueSize: number | undefined } | undefined) => {
    const base = name === 'coingecko' && e.COINGECKO_API_KEY ? COINGECKO_DEMO_LIMIT : DEFAULT_PROVIDER_LIMITS[name];
    return over ? { points: over.points, durationSeconds: over.durationSeconds, maxQueueSize: over.maxQueueSize ?? base.maxQueueSize } : base;
  };
  const urls = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${join(e.DATA_DIR, 'service.db')}`,
    redisUrl: e.REDIS_URL,
    facilitatorUrl: e.FACILITATOR_URL,
    rpcUrls: { [PRODUCTION]: urls(e.RPC_URL_8453), [TESTNET]: urls(e.RPC_URL_84532) },
    devnetPort: e.DEVNET_PORT,
    devnetIdleBlockMs: e.DEVNET_IDLE_BLOCK_SECONDS * 1000,
    treasuryKey: e.TREASURY_KEY as `0x${string}` | undefined,
    settlementKey: e.SETTLEMENT_KEY as `0x${string}` | undefined,
    launchFactories: {
      [PRODUCTION]: e.LAUNCH_FACTORY_8453 as `0x${string}` | undefined,
      [TESTNET]: e.LAUNCH_FACTORY_84532 as `0x${string}` | undefined,
    },
    uniswapV2: {
      [PRODUCTION]: e.UNISWAP_V2_ROUTER_8453
        ? { router: e.UNISWAP_V2_ROUTER_8453 as `0x${string}`, factory: e.UNISWAP_V2_FACTORY_8453 as `0x${string}` }
        : BASE_UNISWAP_V2,
      [TESTNET]: e.UNISWAP_V2_ROUTER_84532
        ? { router: e.UNISWAP_V2_ROUTER_84532 as `0x${string}`, factory: e.UNISWAP_V2_FACTORY_84532 as `0x${string}` }
        : undefined,
    },
    chain: e.RPC_URL_8453 || e.RPC_URL_84532 ? 'rpc' : 'devnet',
    workers: e.WORKERS,
    acceptSettingsChange: (e.ACCEPT_SETTINGS_CHANGE ?? '').split(',').map((v) => v.trim()).filter(Boolean),
    reconcilerGraceMs: e.RECONCILER_GRACE_SECONDS * 1000,
    indexer: { confirmations: e.INDEXER_CONFIRMATIONS ?? (realChain ? 10 : 0), blockRange: e.INDEXER_BLOCK_RANGE },
    tunables: TUNABLES,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    rateLimitPerMinute: e.RATE_LIMIT_FREE_PER_MINUTE,
    publicUrl: e.PUBLIC_URL === undefined ? undefined : new URL(e.PUBLIC_URL).origin,
    corsOrigins: e.CORS_ORIGINS ?? [],
    infoAccessSeconds: e.INFO_ACCESS_SECONDS,
    maxEventStreams: e.MAX_EVENT_STREAMS,
    maxEventStreamsPerClient: e.MAX_EVENT_STREAMS_PER_CLIENT,
    detectionFailClosed: e.NETWORK_DETECTION_FAIL_CLOSED,
    quotes: {
      providers: e.QUOTE_PROVIDERS ?? (realChain ? REAL_QUOTE_PROVIDERS : DEVNET_QUOTE_PROVIDERS),
      maxSpreadBps: BigInt(e.QUOTE_MAX_SPREAD_BPS),
      cacheMs: e.QUOTE_CACHE_SECONDS * 1000,
      deadlineMs: e.QUOTE_DEADLINE_MS,
      timeoutMs: e.QUOTE_TIMEOUT_MS,
      breaker: { failures: e.QUOTE_BREAKER_FAILURES, openMs: e.QUOTE_BREAKER_OPEN_SECONDS * 1000 },
      limits: {
        chainlink: limitOf('chainlink', e.QUOTE_LIMIT_CHAINLINK),
        coinbase: limitOf('coinbase', e.QUOTE_LIMIT_COINBASE),
        coingecko: limitOf('coingecko', e.QUOTE_LIMIT_COINGECKO),
        pyth: limitOf('pyth', e.QUOTE_LIMIT_PYTH),
        fixed: limitOf('fixed', e.QUOTE_LIMIT_FIXED),
      },
      fixedPrices: e.QUOTE_FIXED_PRICES ?? { USDC: parseUsdPrice(DEVNET_FIXED_PRICES.USDC), EURC: parseUsdPrice(DEVNET_FIXED_PRICES.EURC) },
      coinbaseUrl: e.COINBASE_API_URL,
      coingeckoUrl: e.COINGECKO_API_URL,
      coingeckoApiKey: e.COINGECKO_API_KEY,
      pythUrl: e.PYTH_HERMES_URL,
      pythApiKey: e.PYTH_API_KEY,
    },
    settings: {
      ...d,
      curve,
      prices: {
        create: e.CREATE_PRICE_USD ?? d.prices.create,
        sell: e.SELL_PRICE_USD ?? d.prices.sell,
        info: e.INFO_PRICE_USD ?? d.prices.info,
      },
      minBuyUsd: e.MIN_BUY_USD ?? d.minBuyUsd,
      usdcDepegFloor: e.USDC_DEPEG_FLOOR ?? d.usdcDepegFloor,
      quoteMaxSpreadBps: BigInt(e.QUOTE_MAX_SPREAD_BPS),
      maxBuyUsd: e.MAX_BUY_USD ?? d.maxBuyUsd,
      graduationFeeUsd: e.GRADUATION_FEE_USD ?? d.graduationFeeUsd,
      feeShares,
      earningsPayoutMinUsd: e.EARNINGS_PAYOUT_MIN_USD ?? d.earningsPayoutMinUsd,
      launchFee: { startBps: BigInt(e.LAUNCH_FEE_START_BPS), decayMs: BigInt(e.LAUNCH_FEE_DECAY_SECONDS) * 1000n },
      payTo: {
        [PRODUCTION]: e.PAY_TO_8453 ?? d.payTo[PRODUCTION],
        [TESTNET]: e.PAY_TO_84532 ?? d.payTo[TESTNET],
      },
    },
  };
}

/** The stdio MCP bridge's settings (docs/agents.md "The stdio bridge"): a separate program, read here like the service's. */
export interface BridgeConfig {
  /** The service the bridge forwards to; its MCP endpoint is `${baseUrl}/mcp`. */
  baseUrl: string;
  /** The key that pays; null: the bridge forwards, and paid tools answer their price without paying. */
  walletKey: `0x${string}` | null;
  /** At most this per call, in micro-USD: a dearer price is refused without signing. */
  maxPaymentUsd: bigint;
  /** At most this for the whole run, in micro-USD: past it every payment is refused without signing. */
  budgetUsd: bigint;
}

const bridgeSchema = z.object({
  BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  PORT: z.string().regex(/^\d+$/).optional(),
  WALLET_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key')
    .transform((v) => v as `0x${string}`)
    .optional(),
  MAX_PAYMENT_USD: usd.default(parseUsd('0.10')),
  BUDGET_USD: usd.default(parseUsd('1')),
});

export function loadBridgeConfig(env: Record<string, string | undefined> = process.env): BridgeConfig {
  // An empty variable (as MCP clients' JSON configs often leave one) is no setting.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = bridgeSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    baseUrl: (e.BASE_URL ?? `http://127.0.0.1:${e.PORT ?? '3000'}`).replace(/\/+$/, ''),
    walletKey: e.WALLET_KEY ?? null,
    maxPaymentUsd: e.MAX_PAYMENT_USD,
    budgetUsd: e.BUDGET_USD,
  };
}
