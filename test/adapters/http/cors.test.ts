/**
 * CORS (docs/api.md "Browsers and other origins") at the HTTP level: preflights from the origins
 * CORS_ORIGINS lists (and the service's own) pass and name what a page may send and read; any
 * other origin's preflight is 403 CORS_ORIGIN_NOT_ALLOWED without a grant. The browser's side of
 * the same rules: test/e2e/page-devnet.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/bootstrap/config/config.js';
import type { RunningService } from '../../../src/bootstrap/compose.js';
import { json, startTestService } from '../../support/service.js';

const APP = 'https://app.example.com';
let service: RunningService;
let open: RunningService;

beforeAll(async () => {
  [service, open] = await Promise.all([startTestService({}, { CORS_ORIGINS: `${APP},http://localhost:5173` }), startTestService({}, { CORS_ORIGINS: '*' })]);
});
afterAll(async () => {
  await Promise.all([service.stop(), open.stop()]);
});

const preflight = (base: string, origin: string, headers = 'content-type,payment-signature,sign-in-with-x,x-wallet-address') =>
  fetch(`${base}/entrypoints/token_buy_usd`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers } });

describe('CORS', () => {
  it('a preflight from a listed origin is granted: the payment and extension headers in, for ten minutes', async () => {
    const res = await preflight(service.url, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['content-type', 'payment-signature', 'sign-in-with-x', 'x-wallet-address']));
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('a preflight from any other origin is refused in an envelope, with no grant', async () => {
    const res = await preflight(service.url, 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = await json(res);
    expect(body.error.code).toBe('CORS_ORIGIN_NOT_ALLOWED');
    expect(body.error.details).toEqual({ origin: 'https://evil.example' });
  });

  it('the service’s own origin needs no listing; "*" allows every origin', async () => {
    expect((await preflight(service.url, service.url)).status).toBe(204);
    const res = await preflight(open.url, 'https://anyone.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anyone.example');
  });

  it('an answer to an allowed origin lets its script read the 402 (PAYMENT-REQUIRED) and the other x402 headers', async () => {
    const res = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json', 'x-wallet-address': '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' },
      body: JSON.stringify({ name: 'Cors', symbol: 'CORS' }),
    });
    expect(res.status).toBe(402);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = res.headers.get('access-control-expose-headers')!.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-Request-Id', 'Retry-After', 'Location']));
    const other = await fetch(`${service.url}/tokens`, { headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(200); // answered, but without a grant a browser keeps it from the page
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a plain OPTIONS (no preflight) says what a path serves instead of 405', async () => {
    const res = await fetch(`${service.url}/tokens`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS, POST');
  });

  it('CORS_ORIGINS takes origins or "*", and refuses anything else at start', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(loadConfig({ CORS_ORIGINS: 'https://A.example/' }).corsOrigins).toEqual(['https://a.example']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({}).corsOrigins).toEqual([]);
    for (const bad of ['https://a.example/app', 'ftp://a.example', 'a.example', 'https://a.example?x=1'])
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(ConfigError);
  });
});
