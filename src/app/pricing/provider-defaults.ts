/**
 * The quote sources the service knows and their default limits: each source's documented free
 * tier (docs/pricing.md cites them), so the router never spends more than a free account may.
 */
import type { ProviderLimit } from './price-board.js';

export const QUOTE_PROVIDER_NAMES = ['chainlink', 'coinbase', 'coingecko', 'pyth', 'fixed'] as const;
export type QuoteProviderName = (typeof QUOTE_PROVIDER_NAMES)[number];

export const DEFAULT_PROVIDER_LIMITS: Record<QuoteProviderName, ProviderLimit> = {
  // Chainlink itself has no limit: the reads cost the RPC's budget. 10 eth_calls a second is
  // well inside public Base endpoints.
  chainlink: { points: 10, durationSeconds: 1, maxQueueSize: 20 },
  // "rate limited to 10,000 requests per hour"
  coinbase: { points: 10_000, durationSeconds: 3_600, maxQueueSize: 10 },
  // keyless: "10-30 calls/min" depending on traffic; we take the floor (a Demo key: 30/min)
  coingecko: { points: 10, durationSeconds: 60, maxQueueSize: 5 },
  // public Hermes: "30 requests every 10 seconds per IP"
  pyth: { points: 30, durationSeconds: 10, maxQueueSize: 10 },
  // in process
  fixed: { points: 1_000, durationSeconds: 1, maxQueueSize: 100 },
};

export const COINGECKO_DEMO_LIMIT: ProviderLimit = { points: 30, durationSeconds: 60, maxQueueSize: 5 };

/** On the devnet: the Chainlink adapter over the mock feeds, and fixed prices beside it. */
export const DEVNET_QUOTE_PROVIDERS: QuoteProviderName[] = ['chainlink', 'fixed'];
/** With real RPCs: every real source. */
export const REAL_QUOTE_PROVIDERS: QuoteProviderName[] = ['chainlink', 'coinbase', 'coingecko', 'pyth'];
/** The devnet's fixed prices: the same as its mock feeds' first answers. */
export const DEVNET_FIXED_PRICES = { USDC: '1', EURC: '1.08' } as const;
