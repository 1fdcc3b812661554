/**
 * The quote router (docs/pricing.md, docs/rate-limits.md): one QuoteProvider over all configured sources, so a use case
 * never knows how many there are. Per source: a token bucket with a bounded FIFO queue
 * (rate-limiter-flexible), a timeout, a circuit breaker, and its 429 Retry-After honoured. An ask
 * waits for every source up to a deadline, drops answers older than the source's staleness bound
 * and those farther than maxSpreadBps from the median, and answers the median of what is left.
 * Each source's answer is cached and concurrent asks share one call, so 200 asks for one price
 * make at most one call per source. No fresh answer is ServiceUnavailable — never a guess.
 *
 * It lives in src/app: it is policy over ports, and rate-limiter-flexible's in-memory limiter is
 * an algorithm here (no I/O), like zod — the layering rule still keeps every adapter out.
 */
import { RateLimiterMemory, RateLimiterQueue, RateLimiterQueueError } from 'rate-limiter-flexible';
import { ServiceUnavailable } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import { medianUsdPrice, withinBps, type PricedAsset } from '../../domain/usd-price.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../ports/quote-provider.js';
import type { AnswerStatus, BreakerState, PriceBoard, PriceRound, ProviderAnswer, ProviderLimit, ProviderState } from './price-board.js';

export type { ProviderLimit };

export interface RoutedProvider {
  provider: QuoteProvider;
  limit: ProviderLimit;
  /** Covers the wait for a token and the call itself. */
  timeoutMs: number;
}

export interface QuoteRouterOptions {
  providers: RoutedProvider[];
  clock: Clock;
  logger?: Logger;
  /** Answers farther than this from the median are dropped (docs/pricing.md: QUOTE_MAX_SPREAD_BPS, default 100). */
  maxSpreadBps?: bigint;
  /** How long a source's answer is reused (default 15 s). */
  cacheMs?: number;
  /** How long one ask waits for the sources (default 3 s); later answers still fill the cache. */
  deadlineMs?: number;
  /** Consecutive failures that open a source's breaker, and how long it stays open before one probe. */
  breaker?: { failures: number; openMs: number };
  /** How long to leave a source alone after a 429 that gave no Retry-After (default 60 s). */
  defaultRetryAfterMs?: number;
}

interface Slot {
  inflight?: Promise<ProviderAnswer>;
  /** The last good answer and when (clock ms) it was fetched. */
  answer?: ProviderAnswer;
  fetchedAt?: number;
}

interface Lane {
  routed: RoutedProvider;
  queue: RateLimiterQueue;
  slots: Map<string, Slot>;
  breaker: { state: 'closed' | 'open' | 'half-open'; failures: number; openedAt: number; probing: boolean };
  /** Set by a 429: the source is skipped until then (clock ms). */
  blockedUntil: number;
  lastFailure?: { kind: string; message: string; at: Date };
}

type Gate = 'rate-limited' | 'circuit-open' | 'probe-in-flight';

export class QuoteRouter implements QuoteProvider, PriceBoard {
  readonly name = 'router';
  readonly networkIndependent = false;
  readonly maxSpreadBps: bigint;
  readonly cacheMs: number;
  private readonly deadlineMs: number;
  private readonly breakerFailures: number;
  private readonly breakerOpenMs: number;
  private readonly defaultRetryAfterMs: number;
  private readonly lanes: Lane[];
  private readonly rounds = new Map<string, PriceRound>();

  constructor(private readonly options: QuoteRouterOptions) {
    this.maxSpreadBps = options.maxSpreadBps ?? 100n;
    this.cacheMs = options.cacheMs ?? 15_000;
    this.deadlineMs = options.deadlineMs ?? 3_000;
    this.breakerFailures = options.breaker?.failures ?? 3;
    this.breakerOpenMs = options.breaker?.openMs ?? 30_000;
    this.defaultRetryAfterMs = options.defaultRetryAfterMs ?? 60_000;
    const names = new Set<string>();
    this.lanes = options.providers.map((routed) => {
      if (names.has(routed.provider.name)) throw new Error(`two quote providers are named ${routed.provider.name}`);
      names.add(routed.provider.name);
      const limiter = new RateLimiterMemory({
        points: routed.limit.points,
        duration: routed.limit.durationSeconds,
        keyPrefix: `quotes:${routed.provider.name}`,
      });
      return {
        routed,
        queue: new RateLimiterQueue(limiter, { maxQueueSize: routed.limit.maxQueueSize }),
        slots: new Map(),
        breaker: { state: 'closed', failures: 0, openedAt: 0, probing: false },
        blockedUntil: 0,
      };
    });
  }

  supports(asset: PricedAsset, network: Network): boolean {
    return this.lanes.some((l) => l.routed.provider.supports(asset, network));
  }

  /** The router's answer is as old as its oldest source allows. */
  maxAgeMs(asset: PricedAsset): number {
    return Math.max(0, ...this.lanes.map((l) => l.routed.provider.maxAgeMs(asset)));
  }

  get providerNames(): string[] {
    return this.lanes.map((l) => l.routed.provider.name);
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    const lanes = this.lanes.filter((l) => l.routed.provider.supports(asset, network));
    if (lanes.length === 0) throw new QuoteFailure(this.name, 'unsupported', `no quote provider prices ${asset} on ${network}`);
    if (options.signal?.aborted) throw new QuoteFailure(this.name, 'timeout', 'the caller stopped waiting');
    const deadline = sleep(this.deadlineMs);
    let answers: ProviderAnswer[];
    try {
      answers = await Promise.all(lanes.map((lane) => this.answerFrom(lane, asset, network, deadline.promise)));
    } finally {
      deadline.cancel();
    }
    const round = this.judge(asset, network, answers);
    this.rounds.set(roundKey(asset, network), round);
    const kept = round.answers.filter((a) => a.status === 'ok');
    if (!round.price || kept.length === 0) {
      const retryAfter = this.retryAfterSeconds(lanes);
      this.options.logger?.warn('no fresh USD price', { asset, network, answers: answers.map((a) => `${a.provider}:${a.status}`) });
      throw new ServiceUnavailable(`No fresh USD price for ${asset} on ${network} right now.`, retryAfter, { asset, network });
    }
    return {
      asset,
      network,
      price: round.price,
      provider: `median(${kept.map((a) => a.provider).join(',')})`,
      observedAt: new Date(Math.min(...kept.map((a) => a.quote!.observedAt.getTime()))),
    };
  }

  lastRound(asset: PricedAsset, network: Network): PriceRound | undefined {
    return this.rounds.get(roundKey(asset, network));
  }

  async providerStates(): Promise<ProviderState[]> {
    const now = this.now();
    return Promise.all(
      this.lanes.map(async (lane) => {
        const { provider, limit, timeoutMs } = lane.routed;
        const b = lane.breaker;
        const state: BreakerState = b.state === 'open' && now - b.openedAt >= this.breakerOpenMs ? 'half-open' : b.state;
        return {
          name: provider.name,
          limit: { ...limit, remaining: await lane.queue.getTokensRemaining() },
          timeoutMs,
          breaker: {
            state,
            consecutiveFailures: b.failures,
            openUntil: b.state === 'open' ? new Date(b.openedAt + this.breakerOpenMs) : null,
          },
          rateLimitedUntil: lane.blockedUntil > now ? new Date(lane.blockedUntil) : null,
          lastFailure: lane.lastFailure ?? null,
        };
      }),
    );
  }

  /** One source's answer for this ask: cached, shared with a call under way, or a new call. */
  private async answerFrom(lane: Lane, asset: PricedAsset, network: Network, deadline: Promise<void>): Promise<ProviderAnswer> {
    const provider = lane.routed.provider;
    const key = provider.networkIndependent ? asset : roundKey(asset, network);
    let slot = lane.slots.get(key);
    if (!slot) lane.slots.set(key, (slot = {}));
    // A clock set back (fetchedAt in the future) invalidates the cache rather than pinning an answer from "later".
    const age = slot.fetchedAt === undefined ? undefined : this.now() - slot.fetchedAt;
    if (slot.answer && age !== undefined && age >= 0 && age < this.cacheMs) return slot.answer;
    if (!slot.inflight) {
      const gate = this.admit(lane);
      if (gate) return { provider: provider.name, status: 'skipped', reason: gate };
      const call = this.call(lane, asset, network, slot);
      slot.inflight = call;
      void call.finally(() => {
        if (slot.inflight === call) slot.inflight = undefined;
      });
    }
    const late: ProviderAnswer = { provider: provider.name, status: 'failed', reason: 'deadline' };
    return Promise.race([slot.inflight, deadline.then(() => late)]);
  }

  /** Whether the source may be called now: not told to wait by a 429, breaker not open. */
  private admit(lane: Lane): Gate | null {
    const now = this.now();
    if (now < lane.blockedUntil) return 'rate-limited';
    const b = lane.breaker;
    if (b.state === 'open') {
      if (now - b.openedAt < this.breakerOpenMs) return 'circuit-open';
      b.state = 'half-open';
    }
    if (b.state === 'half-open') {
      if (b.probing) return 'probe-in-flight';
      b.probing = true;
    }
    return null;
  }

  private async call(lane: Lane, asset: PricedAsset, network: Network, slot: Slot): Promise<ProviderAnswer> {
    const { provider, timeoutMs } = lane.routed;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      try {
        // The queue drops a request still waiting when its time is up (whole seconds), so an
        // abandoned ask does not use a token later.
        await untilAborted(lane.queue.removeTokens(1, undefined, Math.ceil((Date.now() + timeoutMs) / 1000)), abort.signal);
      } catch (e) {
        this.releaseProbe(lane);
        if (e instanceof RateLimiterQueueError) return { provider: provider.name, status: 'skipped', reason: 'queue-full' };
        return { provider: provider.name, status: 'skipped', reason: 'queue-timeout' };
      }
      if (abort.signal.aborted) {
        this.releaseProbe(lane);
        return { provider: provider.name, status: 'skipped', reason: 'queue-timeout' };
      }
      const quote = await untilAborted(provider.usdPrice(asset, network, { signal: abort.signal }), abort.signal);
      if (quote.asset !== asset) throw new QuoteFailure(provider.name, 'malformed', `answered ${quote.asset} for ${asset}`);
      this.succeeded(lane);
      const answer: ProviderAnswer = { provider: provider.name, status: 'ok', quote };
      slot.answer = answer;
      slot.fetchedAt = this.now();
      return answer;
    } catch (e) {
      const failure =
        e instanceof QuoteFailure
          ? e
          : abort.signal.aborted
            ? new QuoteFailure(provider.name, 'timeout', `no answer within ${timeoutMs} ms`)
            : new QuoteFailure(provider.name, 'unavailable', (e as Error).message);
      this.failed(lane, failure);
      return { provider: provider.name, status: 'failed', reason: failure.kind, message: failure.message };
    } finally {
      clearTimeout(timer);
    }
  }

  private succeeded(lane: Lane): void {
    lane.breaker = { state: 'closed', failures: 0, openedAt: 0, probing: false };
  }

  private failed(lane: Lane, failure: QuoteFailure): void {
    const now = this.now();
    lane.lastFailure = { kind: failure.kind, message: failure.message, at: new Date(now) };
    this.options.logger?.warn('quote provider failed', { provider: lane.routed.provider.name, kind: failure.kind, error: failure.message });
    if (failure.kind === 'rate-limited') {
      // The source is fine and said so: wait as told, without counting it against the breaker.
      lane.blockedUntil = now + (failure.retryAfterMs ?? this.defaultRetryAfterMs);
      this.releaseProbe(lane);
      return;
    }
    const b = lane.breaker;
    b.failures += 1;
    if (b.state === 'half-open' || b.failures >= this.breakerFailures) {
      b.state = 'open';
      b.openedAt = now;
    }
    b.probing = false;
  }

  /** A half-open probe that never reached the source leaves the next ask free to probe. */
  private releaseProbe(lane: Lane): void {
    lane.breaker.probing = false;
  }

  /** Marks stale and outlying answers and sets the round's price: the median of what is left. */
  private judge(asset: PricedAsset, network: Network, asked: ProviderAnswer[]): PriceRound {
    const now = this.now();
    // Copies: a cached answer is judged again, against a later clock, by the next ask.
    const answers = asked.map((a) => ({ ...a }));
    for (const a of answers) {
      if (a.status !== 'ok') continue;
      const lane = this.lanes.find((l) => l.routed.provider.name === a.provider)!;
      const observed = a.quote!.observedAt.getTime();
      if (now - observed > lane.routed.provider.maxAgeMs(asset)) mark(a, 'stale');
      // A source that claims to see the future is as untrustworthy as a stale one.
      else if (observed - now > FUTURE_TOLERANCE_MS) mark(a, 'stale');
    }
    const fresh = answers.filter((a) => a.status === 'ok');
    let price = fresh.length > 0 ? medianUsdPrice(fresh.map((a) => a.quote!.price)) : undefined;
    if (price) {
      for (const a of fresh) if (!withinBps(a.quote!.price, price, this.maxSpreadBps)) mark(a, 'outlier');
      const kept = fresh.filter((a) => a.status === 'ok');
      price = kept.length > 0 ? medianUsdPrice(kept.map((a) => a.quote!.price)) : undefined;
    }
    return { asset, network, at: new Date(now), price, answers };
  }

  /** When asking again can help: the earliest moment a skipped source may be called, within [1, 60] s. */
  private retryAfterSeconds(lanes: Lane[]): number {
    const now = this.now();
    const waits = lanes.map((l) => {
      if (l.blockedUntil > now) return l.blockedUntil - now;
      if (l.breaker.state === 'open') return Math.max(0, l.breaker.openedAt + this.breakerOpenMs - now);
      return 0;
    });
    const soonest = Math.min(...waits);
    return Math.min(60, Math.max(1, Math.ceil((soonest || 5_000) / 1000)));
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}

const FUTURE_TOLERANCE_MS = 60_000;

function mark(answer: ProviderAnswer, status: AnswerStatus): void {
  answer.status = status;
}

function roundKey(asset: PricedAsset, network: Network): string {
  return `${asset}|${network}`;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new Error('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout;
  const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}
