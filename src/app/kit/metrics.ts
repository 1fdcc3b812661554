/**
 * Everything the service measures (docs/operations.md, "Metrics"): the catalogue every Metrics
 * adapter is built with, the names the application calls, and the counters /health shows.
 * Labels stay bounded: routes are templates (`/tokens/:id`), never ids.
 */
import type { OutboxFields } from '../../domain/outbox.js';
import type { Payment } from '../../domain/payment.js';
import type { Clock } from '../../ports/clock.js';
import type { MetricCatalogue, Metrics } from '../../ports/metrics.js';
import type { OutboxStore } from '../../ports/outbox-store.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import type { Availability } from './availability.js';
import type { PriceBoard } from '../pricing/index.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;
const CHAIN_SECONDS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 900] as const;

export const METRICS = {
  prefix: 'launchpad_',
  counters: {
    payments_total: {
      help: 'Payments by how they ended: applied, refunded, pending (settlement unknown, left to the reconciler), rejected or failed (nothing charged).',
      labels: ['entrypoint', 'outcome', 'asset', 'network'],
    },
    payment_refusals_total: {
      help: 'Payments refused before their nonce was claimed (nothing stored, nothing charged), by error code.',
      labels: ['entrypoint', 'code', 'asset', 'network'],
    },
    payments_used_after_close_total: { help: 'Payments closed as unsettled and then found used on chain (refunded by the safety net).', labels: [] },
    payments_stuck_in_custody_total: { help: 'Passes that found a settled payment unapplied past the give-up with a pull or swap custody sent for it: not refunded, left for an operator.', labels: [] },
    channel_deposits_total: { help: 'Deposits into batch-settlement channels the facilitator submitted for payers (docs/payments.md "Pay once, call many").', labels: ['network', 'asset'] },
    channel_claims_total: { help: 'Batch-settlement claims sent, by outcome (docs/payments.md "Pay once, call many").', labels: ['network', 'outcome'] },
    channel_refunds_total: { help: 'Cooperative refunds of batch-settlement channels, by outcome.', labels: ['network', 'outcome'] },
    payment_quotes_moved_total: { help: 'Payments refused because the held EURC (or depegged USDC) price moved past the spread bound.', labels: [] },
    payment_identifier_replays_total: { help: 'Retries answered from a payment identifier seen before.', labels: [] },
    network_detection_total: { help: 'Network detection that could not answer: failure (every one), fallback (to the payment network).', labels: ['result'] },
    siwx_proofs_total: { help: 'Sign-In-With-X proofs on unpaid requests: accepted or ignored.', labels: ['result'] },
    access_grants_used_total: { help: 'Requests answered by an access grant instead of a payment.', labels: [] },
    rate_limited_total: { help: 'Requests refused with 429 RATE_LIMITED, by route.', labels: ['route'] },
    nonce_retries_total: { help: 'Custody transactions signed again with a fresh nonce because theirs was taken (dropped), by kind.', labels: ['kind'] },
    transactions_reverted_total: { help: 'Custody transactions mined and reverted, by kind.', labels: ['kind'] },
    transactions_without_effect_total: {
      help: 'Custody and treasury transactions mined as a success without their effect (no Transfer log, no deployed token): not confirmed, held for an operator, by kind.',
      labels: ['kind'],
    },
    comments_total: { help: "Comments posted (paid) and hidden by their token's creator, by action.", labels: ['action'] },
    comment_refusals_total: { help: 'Comments, replies and hides refused (before any payment), by error code.', labels: ['code'] },
    image_uploads_total: {
      help: 'Token image uploads: accepted (stored, or duplicate: those bytes were stored before) or refused before payment, by error code.',
      labels: ['result', 'reason'],
    },
    image_bytes_stored_total: { help: 'Bytes of token images (image and thumbnail) newly stored in the database.', labels: [] },
    raises_settled_total: { help: "Fair launches' raises settled: filled (one buy, split pro rata) or failed (nothing kept).", labels: ['outcome'] },
    order_executions_total: {
      help: 'Orders whose price was crossed, by kind and outcome: executed, failed (authorization unusable), missed (bound not met: left OPEN), pending (collect or pull not mined yet).',
      labels: ['kind', 'outcome'],
    },
  },
  histograms: {
    http_request_duration_seconds: {
      help: 'HTTP requests by method, route template and status, with their latency.',
      labels: ['method', 'route', 'status'],
      buckets: SECONDS,
    },
    settlement_duration_seconds: {
      help: 'How long the facilitator took to settle a payment, by network and result (success, failed, unknown).',
      labels: ['network', 'result'],
      buckets: [...SECONDS, 60],
    },
    confirmation_duration_seconds: {
      help: 'From the broadcast of a custody transaction (payout, delivery, deployment, graduation step) to its confirmation, by kind.',
      labels: ['kind'],
      buckets: CHAIN_SECONDS,
    },
  },
  gauges: {
    outbox_items: { help: 'Outbox items waiting (PENDING) or sent and not yet mined (SENT), by kind.', labels: ['kind', 'state'] },
    outbox_oldest_age_seconds: { help: 'Age of the oldest PENDING or SENT outbox item, by kind (0 when none).', labels: ['kind'] },
    dependency_up: {
      help: 'The last probe of each dependency: 1 answering, 0 not (chain per network, facilitator, database).',
      labels: ['dependency', 'network'],
    },
    quote_provider_breaker_open: { help: 'Per USD price source: 1 while its circuit breaker is open or half-open.', labels: ['provider'] },
    quote_provider_tokens_remaining: { help: 'Per USD price source: requests left in its rate-limit window.', labels: ['provider'] },
    event_streams_open: { help: 'Open GET /api/events streams.', labels: [] },
    raises: { help: "Fair launches' raises by state (RAISING, COLLECTING, FILLED, FAILED).", labels: ['state'] },
    orders_open: { help: 'Orders OPEN (waiting for their price), all tokens.', labels: [] },
  },
} as const satisfies MetricCatalogue;

export type CounterName = keyof typeof METRICS.counters;
export type HistogramName = keyof typeof METRICS.histograms;
export type GaugeName = keyof typeof METRICS.gauges;

/** The Metrics port with the catalogue's names. */
export type AppMetrics = Metrics<CounterName, HistogramName, GaugeName>;

export type PaymentOutcome = 'applied' | 'refunded' | 'pending' | 'rejected' | 'failed';

/** One payment's end, labelled by what paid (the entrypoint is the payment's resource). */
export function countPayment(metrics: AppMetrics, payment: Pick<Payment, 'resource' | 'asset' | 'network'>, outcome: PaymentOutcome): void {
  metrics.increment('payments_total', { entrypoint: payment.resource, outcome, asset: payment.asset, network: payment.network });
}

/** The counters /health shows (docs/api.md "GET /health"), each a counter and the labels it sums. */
const HEALTH_COUNTERS: Readonly<Record<string, readonly [CounterName, Record<string, string>]>> = {
  'access_grants.used': ['access_grants_used_total', {}],
  'network_detection.failures': ['network_detection_total', { result: 'failure' }],
  'network_detection.fallbacks': ['network_detection_total', { result: 'fallback' }],
  'payment_identifiers.replayed': ['payment_identifier_replays_total', {}],
  'payments.applied': ['payments_total', { outcome: 'applied' }],
  'payments.quote_moved': ['payment_quotes_moved_total', {}],
  'payments.refunded': ['payments_total', { outcome: 'refunded' }],
  'payments.settlement_pending': ['payments_total', { outcome: 'pending' }],
  'payments.used_after_close': ['payments_used_after_close_total', {}],
  'payments.stuck_in_custody': ['payments_stuck_in_custody_total', {}],
  'transactions.without_effect': ['transactions_without_effect_total', {}],
  'siwx.accepted': ['siwx_proofs_total', { result: 'accepted' }],
  'siwx.ignored': ['siwx_proofs_total', { result: 'ignored' }],
};

/** The /health document's counters, from the same counters /metrics exposes (this process's, since it started). */
export async function healthCounters(metrics: AppMetrics): Promise<Record<string, number>> {
  const entries = await Promise.all(Object.entries(HEALTH_COUNTERS).map(async ([key, [name, match]]) => [key, await metrics.total(name, match)] as const));
  return Object.fromEntries(entries);
}

/** What the gauges read at each scrape. */
export interface GaugeSources {
  metrics: AppMetrics;
  uow: UnitOfWork;
  clock: Clock;
  availability: Availability;
  priceBoard: Pick<PriceBoard, 'providerStates'>;
}

/**
 * Registers the gauges read at each scrape: the outboxes' backlog (one query per outbox, shared
 * by both of its gauges within a second), the dependencies as the last round of probes saw them,
 * and each USD price source's breaker and remaining budget.
 */
export function collectGauges(g: GaugeSources): void {
  const backlog = memo(g.clock, () =>
    g.uow.run((s) =>
      Promise.all(OUTBOX_KINDS.map(async ([kind, store]) => [kind, await store(s).backlog()] as const)),
    ),
  );
  g.metrics.collect('outbox_items', async () =>
    (await backlog()).flatMap(([kind, b]) => [
      { labels: { kind, state: 'PENDING' }, value: b.pending },
      { labels: { kind, state: 'SENT' }, value: b.sent },
    ]),
  );
  g.metrics.collect('outbox_oldest_age_seconds', async () => {
    const now = g.clock.now().getTime();
    return (await backlog()).map(([kind, b]) => ({ labels: { kind }, value: b.oldestCreatedAt ? Math.max(0, (now - b.oldestCreatedAt.getTime()) / 1000) : 0 }));
  });
  g.metrics.collect('dependency_up', async () => {
    const [known, database] = await Promise.all([
      g.availability.known(),
      g.uow.run((s) => s.events.lastId()).then(
        () => 1,
        () => 0,
      ),
    ]);
    return [
      { labels: { dependency: 'database', network: '' }, value: database },
      { labels: { dependency: 'facilitator', network: '' }, value: known.facilitator === 'down' ? 0 : 1 },
      ...Object.entries(known.chains).map(([network, status]) => ({ labels: { dependency: 'chain', network }, value: status === 'ok' ? 1 : 0 })),
    ];
  });
  g.metrics.collect('raises', async () =>
    Object.entries(await g.uow.run((s) => s.raises.countByState())).map(([state, n]) => ({ labels: { state }, value: n ?? 0 })),
  );
  g.metrics.collect('orders_open', async () => [{ labels: {}, value: await g.uow.run((s) => s.orders.countOpen()) }]);
  g.metrics.collect('quote_provider_breaker_open', async () =>
    (await g.priceBoard.providerStates()).map((p) => ({ labels: { provider: p.name }, value: p.breaker.state === 'closed' ? 0 : 1 })),
  );
  g.metrics.collect('quote_provider_tokens_remaining', async () =>
    (await g.priceBoard.providerStates()).map((p) => ({ labels: { provider: p.name }, value: p.limit.remaining })),
  );
}

const OUTBOX_KINDS: readonly (readonly [string, (s: Stores) => OutboxStore<OutboxFields>])[] = [
  ['payout', (s) => s.payouts],
  ['deployment', (s) => s.deployments],
  ['delivery', (s) => s.deliveries],
  ['graduation', (s) => s.graduations],
];

/** `read`'s answer shared for a second: the gauges of one scrape ask once. */
function memo<T>(clock: Clock, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = clock.now().getTime();
    if (!last || now - last.at >= 1_000 || now < last.at) {
      last = { at: now, value: read() };
      last.value.catch(() => (last = null));
    }
    return last.value;
  };
}
