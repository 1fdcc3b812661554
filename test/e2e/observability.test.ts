/**
 * What an operator reads (docs/operations.md, "Metrics" and "Logs"): GET /metrics in the
 * Prometheus text format from the prom-client adapter — requests by route template and status
 * with their latency, payments by outcome and asset, settlement and confirmation latency, the
 * outboxes' backlog, the dependencies, the price sources, event streams, rate-limit refusals and
 * Node's process metrics — and one access line per request with its request id and, for a paid
 * request, its payment id. /health keeps its counters, from the same instruments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import { parseExposition } from '../contract/metrics.contract.js';
import { json, settle, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const wallet = devAccount(6);
const logger = new MemoryLogger('info');
let service: RunningService;
let paymentId: string;

const scrape = async () => {
  const res = await fetch(`${service.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
};
const sumOf = (series: Map<string, number>, prefix: string, ...labels: string[]) =>
  [...series].filter(([k]) => k.startsWith(prefix) && labels.every((l) => k.includes(l))).reduce((s, [, v]) => s + v, 0);

beforeAll(async () => {
  service = await startTestService({ ports: { logger } }, { RATE_LIMIT_FREE_PER_MINUTE: '20' });
  const created = await payingFetch(wallet)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, 'x-request-id': 'create-1' },
    body: JSON.stringify({ name: 'Observed', symbol: 'OBS' }),
  });
  expect(created.status).toBe(201);
  paymentId = (await json(created)).data.payment?.paymentId ?? '';
  await fetch(`${service.url}/tokens`);
  await fetch(`${service.url}/no/such/path`);
  // Past the free budget (however the 60 s window falls).
  for (let i = 0; i < 200 && (await fetch(`${service.url}/api/version`)).status !== 429; i++);
});
afterAll(async () => {
  await service.stop();
});

describe('GET /metrics', () => {
  it('counts requests by route template and status, with latency, and the refusals of the free budget', async () => {
    const m = await scrape();
    expect(m.get('launchpad_http_request_duration_seconds_count{method="POST",route="/tokens",status="402"}')).toBe(1);
    expect(m.get('launchpad_http_request_duration_seconds_count{method="POST",route="/tokens",status="201"}')).toBe(1);
    expect(m.get('launchpad_http_request_duration_seconds_count{method="GET",route="/no/such/path",status="404"}')).toBeUndefined();
    expect(m.get('launchpad_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(m.get('launchpad_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/tokens",status="200"}')).toBe(1);
    expect(m.get('launchpad_rate_limited_total{route="/api/version"}')).toBeGreaterThan(0);
    // The probes and the scraper are never refused.
    for (let i = 0; i < 5; i++) expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });

  it('payments by outcome and asset, and the settlement latency', async () => {
    const m = await scrape();
    expect(m.get(`launchpad_payments_total{entrypoint="token_create",outcome="applied",asset="USDC",network="${TESTNET}"}`)).toBe(1);
    expect(m.get(`launchpad_settlement_duration_seconds_count{network="${TESTNET}",result="success"}`)).toBe(1);
    // /health's counters are the same instruments.
    expect((await service.application.health()).report.counters['payments.applied']).toBe(1);
  });

  it('the outboxes\u2019 backlog, then their confirmation latency once the workers sent them', async () => {
    let m = await scrape();
    expect(m.get('launchpad_outbox_items{kind="deployment",state="PENDING"}')).toBe(1);
    expect(m.get('launchpad_outbox_oldest_age_seconds{kind="deployment"}')).toBeGreaterThanOrEqual(0);
    await settle(service);
    m = await scrape();
    expect(m.get('launchpad_outbox_items{kind="deployment",state="PENDING"}')).toBe(0);
    expect(m.get('launchpad_outbox_oldest_age_seconds{kind="deployment"}')).toBe(0);
    expect(m.get('launchpad_confirmation_duration_seconds_count{kind="deployment"}')).toBe(1);
  });

  it('the dependencies, the price sources, the event streams and Node\u2019s own metrics', async () => {
    const m = await scrape();
    expect(m.get('launchpad_dependency_up{dependency="database",network=""}')).toBe(1);
    expect(m.get('launchpad_dependency_up{dependency="facilitator",network=""}')).toBe(1);
    expect(m.get(`launchpad_dependency_up{dependency="chain",network="${TESTNET}"}`)).toBe(1);
    expect(sumOf(m, 'launchpad_quote_provider_tokens_remaining{')).toBeGreaterThan(0);
    expect([...m.keys()].some((k) => k.startsWith('launchpad_quote_provider_breaker_open{provider='))).toBe(true);
    expect(m.get('launchpad_event_streams_open')).toBe(0);
    expect(m.has('process_cpu_user_seconds_total')).toBe(true);
    expect([...m.keys()].some((k) => k.startsWith('nodejs_eventloop_lag_seconds'))).toBe(true);
  });
});

describe('the access log', () => {
  it('one line per request, with its request id, and the payment id of a paid one', async () => {
    const lines = logger.lines.filter((l) => l.message === 'request');
    const creates = lines.filter((l) => l.fields.requestId === 'create-1');
    expect(creates.map((l) => [l.fields.status, l.fields.route])).toEqual([
      [402, '/tokens'],
      [201, '/tokens'],
    ]);
    expect(creates[0]!.fields.paymentId).toBeUndefined();
    expect(creates[1]!.fields).toMatchObject({ method: 'POST', path: '/tokens', paymentId: expect.stringMatching(/^pay_/), client: '127.0.0.1' });
    if (paymentId) expect(creates[1]!.fields.paymentId).toBe(paymentId);
    expect(typeof creates[1]!.fields.ms).toBe('number');
    expect(lines.filter((l) => l.fields.path === '/no/such/path').map((l) => l.fields.status)).toEqual([404]);
    // Every response's X-Request-Id is on its line.
    const res = await fetch(`${service.url}/livez`);
    const id = res.headers.get('x-request-id');
    expect(logger.lines.filter((l) => l.message === 'request' && l.fields.requestId === id)).toHaveLength(1);
  });
});
