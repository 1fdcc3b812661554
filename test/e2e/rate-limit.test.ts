/** docs/rate-limits.md on the wire: the free budget, its headers, the 429, and which requests count. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { clientIp, parseTrustProxy, rateLimitKey } from '../../src/adapters/http/koa/client-ip.js';
import { decodeBase64Json, devAccount, signPayment } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';

let service: RunningService;
beforeAll(async () => {
  service = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '3' });
});
afterAll(async () => {
  await service.stop();
});

describe('free-endpoint rate limit', () => {
  it('counts free and unpaid requests, answers 429 with the envelope and headers, and lets paid requests through', async () => {
    const wallet = devAccount(5);
    const first = await fetch(`${service.url}/tokens`);
    expect(first.headers.get('ratelimit-policy')).toBe('"free";q=3;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"free";r=2;t=\d+$/);
    const unpaid = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'A', symbol: 'A' }),
    });
    expect(unpaid.status).toBe(402);
    const signature = await signPayment(wallet, decodeBase64Json(unpaid.headers.get('payment-required')));
    expect(unpaid.headers.get('ratelimit')).toMatch(/^"free";r=1;/);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    const limited = await fetch(`${service.url}/tokens`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await json(limited)).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMITED', details: { limit: 3, windowSeconds: 60, retryAfterSeconds: expect.any(Number) } },
    });
    // A paid request is not limited: the signature obtained earlier still goes through.
    const paid = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': signature },
      body: JSON.stringify({ name: 'A', symbol: 'A' }),
    });
    expect(paid.status).toBe(201);
    expect(paid.headers.get('ratelimit')).toBeNull();
    // …while a payment that is not valid is counted like the 402 it gets.
    const forged = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': 'bm90IGEgcGF5bWVudA==' },
      body: JSON.stringify({ name: 'A', symbol: 'A' }),
    });
    expect([402, 429]).toContain(forged.status);
    expect((await fetch(`${service.url}/tokens`)).status).toBe(429);
  });
});

describe('a PAYMENT-SIGNATURE header buys nothing by itself (#11.3)', () => {
  it('on a free route it is counted like any free request, and refused past the budget', async () => {
    const limited = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${limited.url}/api/stats`, { headers: { 'payment-signature': 'anything' } });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    } finally {
      await limited.stop();
    }
  });

  it('on a paid route a payment that does not verify is counted, so the budget still runs out', async () => {
    const limited = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '3' });
    try {
      const junk = () =>
        fetch(`${limited.url}/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'payment-signature': 'bm90IGEgcGF5bWVudA==' },
          body: JSON.stringify({ name: 'A', symbol: 'A' }),
        });
      for (let i = 0; i < 3; i++) expect((await junk()).status).toBe(402);
      expect((await fetch(`${limited.url}/tokens`)).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});

describe('client IP', () => {
  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(clientIp('203.0.113.9', '198.51.100.1', parseTrustProxy(undefined))).toBe('203.0.113.9');
  });
  it('takes the entry one hop in with TRUST_PROXY=1', () => {
    expect(clientIp('10.0.0.2', '198.51.100.1, 203.0.113.7', parseTrustProxy('1'))).toBe('203.0.113.7');
  });
  it('takes the right-most untrusted entry with a CIDR list', () => {
    const trust = parseTrustProxy('10.0.0.0/8, 192.168.1.1');
    expect(clientIp('10.0.0.2', '198.51.100.1, 203.0.113.7, 192.168.1.1', trust)).toBe('203.0.113.7');
    expect(clientIp('203.0.113.9', '198.51.100.1', trust)).toBe('203.0.113.9');
  });
  it('groups IPv6 clients by /64 and unwraps IPv4-mapped addresses', () => {
    expect(rateLimitKey('2001:db8:1:2:aaaa::1')).toBe(rateLimitKey('2001:db8:1:2:ffff:1:2:3'));
    expect(rateLimitKey('2001:db8:1:2::1')).not.toBe(rateLimitKey('2001:db8:1:3::1'));
    expect(clientIp('::ffff:127.0.0.1', undefined, parseTrustProxy(undefined))).toBe('127.0.0.1');
  });
});
