/**
 * GET /api/prices over HTTP: each asset's USD price per network with the sources asked, their
 * answers and ages, and each source's limit and breaker state; a price nobody can give is shown
 * as such, and the endpoint still answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { QuoteRouter } from '../../src/app/pricing/quote-router.js';
import { ScriptedQuoteProvider } from '../support/scripted-quote-provider.js';
import { json, startTestService } from '../support/service.js';

let service: RunningService | undefined;
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

describe('GET /api/prices', () => {
  it('shows each price with the answers behind it and the state of every source', async () => {
    service = await startTestService();
    const res = await fetch(`${service.url}/api/prices`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ success: true, operation: 'prices' });
    const { prices, providers, policy } = body.data;
    expect(prices.map((p: any) => `${p.asset} ${p.network} ${p.usdPrice}`)).toEqual([
      'USDC eip155:8453 1',
      'EURC eip155:8453 1.08',
      'USDC eip155:84532 1',
      'EURC eip155:84532 1.08',
    ]);
    expect(prices[1]).toMatchObject({
      provider: 'median(fixed)',
      ageSeconds: 0,
      error: null,
      answers: [{ provider: 'fixed', status: 'ok', usdPrice: '1.08', ageSeconds: 0, reason: null }],
    });
    expect(prices[0].belowDepegFloor).toBe(false);
    expect(prices[1]).not.toHaveProperty('belowDepegFloor');
    expect(providers).toEqual([
      {
        name: 'fixed',
        limit: { points: 1000, durationSeconds: 1, maxQueueSize: 100, remaining: expect.any(Number) },
        timeoutMs: 2000,
        breaker: { state: 'closed', consecutiveFailures: 0, openUntil: null },
        rateLimitedUntil: null,
        lastFailure: null,
      },
    ]);
    expect(policy).toEqual({ rule: expect.any(String), maxSpreadBps: 100, cacheSeconds: 15, usdcDepegFloor: '0.98' });
  });

  it('a price no source can give is reported with its error; the endpoint still answers 200', async () => {
    const clock = new FakeClock();
    const down = new ScriptedQuoteProvider('down', clock, { fail: 'unavailable' }, { assets: ['EURC'] });
    const priceBoard = new QuoteRouter({ clock, providers: [{ provider: down, limit: { points: 10, durationSeconds: 1, maxQueueSize: 1 }, timeoutMs: 100 }] });
    service = await startTestService({ ports: { priceBoard } });
    const body = await json(await fetch(`${service.url}/api/prices`));
    expect(body.data.prices).toEqual([
      expect.objectContaining({ asset: 'EURC', network: 'eip155:8453', usdPrice: null, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) }),
      expect.objectContaining({ asset: 'EURC', network: 'eip155:84532', usdPrice: null }),
    ]);
    expect(body.data.prices[0].answers).toEqual([{ provider: 'down', status: 'failed', usdPrice: null, observedAt: null, ageSeconds: null, reason: 'unavailable' }]);
    expect(body.data.providers[0]).toMatchObject({ name: 'down', lastFailure: { kind: 'unavailable' } });
  });

  it('is in the OpenAPI document as operation "prices"', async () => {
    service = await startTestService();
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    expect(doc.paths['/api/prices'].get.operationId).toBe('prices');
    expect(doc.paths['/api/prices'].get.responses[200].content['application/json'].schema.properties.operation).toEqual({ const: 'prices' });
  });
});
