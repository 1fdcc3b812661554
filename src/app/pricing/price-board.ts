/**
 * What the router tells about its sources (GET /api/prices, docs/pricing.md): for each asset the last
 * round — every source asked, what it answered and how old that was — and each source's limit,
 * breaker and Retry-After state.
 */
import type { Network } from '../../domain/network.js';
import type { PricedAsset, UsdPrice } from '../../domain/usd-price.js';
import type { QuoteProvider, UsdQuote } from '../../ports/quote-provider.js';

export interface ProviderLimit {
  /** Requests allowed per window of `durationSeconds` (the source's documented free tier by default). */
  points: number;
  durationSeconds: number;
  /** Asks waiting for a token beyond this many are refused at once instead of queued. */
  maxQueueSize: number;
}

/** ok: used for the median; stale / outlier: answered but dropped; failed / skipped: no answer. */
export type AnswerStatus = 'ok' | 'stale' | 'outlier' | 'failed' | 'skipped';

export interface ProviderAnswer {
  provider: string;
  status: AnswerStatus;
  quote?: UsdQuote;
  /** Why there is no answer: a failure kind, 'deadline', 'rate-limited', 'circuit-open', 'queue-full' … */
  reason?: string;
  message?: string;
}

export interface PriceRound {
  asset: PricedAsset;
  network: Network;
  at: Date;
  /** Undefined when no fresh answer was left. */
  price: UsdPrice | undefined;
  answers: ProviderAnswer[];
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface ProviderState {
  name: string;
  limit: ProviderLimit & { remaining: number };
  timeoutMs: number;
  breaker: { state: BreakerState; consecutiveFailures: number; openUntil: Date | null };
  rateLimitedUntil: Date | null;
  lastFailure: { kind: string; message: string; at: Date } | null;
}

export interface PriceBoard extends QuoteProvider {
  readonly maxSpreadBps: bigint;
  readonly cacheMs: number;
  lastRound(asset: PricedAsset, network: Network): PriceRound | undefined;
  providerStates(): Promise<ProviderState[]>;
}
