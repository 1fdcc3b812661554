/** The quote router and its sources (docs/pricing.md): which providers, their limits, the spread bound, the depeg floor. */
import { z } from 'zod';
import { compareUsdPrices, isPricedAsset, parseUsdPrice, type PricedAsset, type UsdPrice } from '../../domain/usd-price.js';
import { DEFAULT_SETTINGS } from '../../app/kit/default-settings.js';
import type { ProviderLimit } from '../../app/pricing/price-board.js';
import {
  COINGECKO_DEMO_LIMIT,
  DEFAULT_PROVIDER_LIMITS,
  DEVNET_FIXED_PRICES,
  DEVNET_QUOTE_PROVIDERS,
  QUOTE_PROVIDER_NAMES,
  REAL_QUOTE_PROVIDERS,
  type QuoteProviderName,
} from '../../app/pricing/provider-defaults.js';
import type { Settings } from '../../app/kit/settings.js';
import { ConfigError } from './config-error.js';
import { price, type Parsed } from './env-values.js';

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

export const quoteEnv = {
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
};

type QuoteEnv = Parsed<typeof quoteEnv>;

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

function limitOf(e: QuoteEnv, name: QuoteProviderName, over: QuoteEnv['QUOTE_LIMIT_PYTH']): ProviderLimit {
  const base = name === 'coingecko' && e.COINGECKO_API_KEY ? COINGECKO_DEMO_LIMIT : DEFAULT_PROVIDER_LIMITS[name];
  return over ? { points: over.points, durationSeconds: over.durationSeconds, maxQueueSize: over.maxQueueSize ?? base.maxQueueSize } : base;
}

export function readQuotes(e: QuoteEnv, realChain: boolean): QuoteConfig {
  return {
    providers: e.QUOTE_PROVIDERS ?? (realChain ? REAL_QUOTE_PROVIDERS : DEVNET_QUOTE_PROVIDERS),
    maxSpreadBps: BigInt(e.QUOTE_MAX_SPREAD_BPS),
    cacheMs: e.QUOTE_CACHE_SECONDS * 1000,
    deadlineMs: e.QUOTE_DEADLINE_MS,
    timeoutMs: e.QUOTE_TIMEOUT_MS,
    breaker: { failures: e.QUOTE_BREAKER_FAILURES, openMs: e.QUOTE_BREAKER_OPEN_SECONDS * 1000 },
    limits: {
      chainlink: limitOf(e, 'chainlink', e.QUOTE_LIMIT_CHAINLINK),
      coinbase: limitOf(e, 'coinbase', e.QUOTE_LIMIT_COINBASE),
      coingecko: limitOf(e, 'coingecko', e.QUOTE_LIMIT_COINGECKO),
      pyth: limitOf(e, 'pyth', e.QUOTE_LIMIT_PYTH),
      fixed: limitOf(e, 'fixed', e.QUOTE_LIMIT_FIXED),
    },
    fixedPrices: e.QUOTE_FIXED_PRICES ?? { USDC: parseUsdPrice(DEVNET_FIXED_PRICES.USDC), EURC: parseUsdPrice(DEVNET_FIXED_PRICES.EURC) },
    coinbaseUrl: e.COINBASE_API_URL,
    coingeckoUrl: e.COINGECKO_API_URL,
    coingeckoApiKey: e.COINGECKO_API_KEY,
    pythUrl: e.PYTH_HERMES_URL,
    pythApiKey: e.PYTH_API_KEY,
  };
}

/** What the use cases read of the quotes: the spread bound and the depeg floor. */
export function readQuoteSettings(e: QuoteEnv): Pick<Settings, 'usdcDepegFloor' | 'quoteMaxSpreadBps'> {
  if (e.USDC_DEPEG_FLOOR && compareUsdPrices(e.USDC_DEPEG_FLOOR, parseUsdPrice('1')) > 0) {
    throw new ConfigError('Invalid configuration: USDC_DEPEG_FLOOR must be at most 1.');
  }
  return { usdcDepegFloor: e.USDC_DEPEG_FLOOR ?? DEFAULT_SETTINGS.usdcDepegFloor, quoteMaxSpreadBps: BigInt(e.QUOTE_MAX_SPREAD_BPS) };
}
