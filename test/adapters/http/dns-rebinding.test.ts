/**
 * DNS rebinding (decision 0042, docs/api.md "Browsers and other origins"): the service's own origin
 * comes from its configuration and the address it listens on, never from the request's Host. On
 * /mcp and the paid routes a Host it does not answer to is 403 HOST_NOT_ALLOWED and an Origin
 * neither its own nor listed 403 CORS_ORIGIN_NOT_ALLOWED; a request without Origin goes on.
 * Sent with node:http, which (unlike fetch) sends the Host it is given.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../../src/adapters/http/koa/origin-policy.js';
import { ConfigError, loadConfig } from '../../../src/bootstrap/config/config.js';
import type { RunningService } from '../../../src/bootstrap/compose.js';
import { startTestService } from '../../support/service.js';

const APP = 'https://app.example.com';
const WALLET = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
let service: RunningService;
let proxied: RunningService;
let port: number;

beforeAll(async () => {
  [service, proxied] = await Promise.all([
    startTestService({}, { CORS_ORIGINS: APP }),
    startTestService({}, { PUBLIC_URL: 'https://launchpad.example.com', ALLOWED_HOSTS: 'upstream.internal' }),
  ]);
  port = Number(new URL(service.url).port);
});
afterAll(async () => {
  await Promise.all([service?.stop(), proxied?.stop()]);
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const url = new URL(base);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-test', version: '1.0.0' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const create = { name: 'Rebound', symbol: 'RBND' };

describe('a page on a name rebound to the service is refused', () => {
  it('POST /mcp with Host and Origin evil.example.com is 403 HOST_NOT_ALLOWED, with no grant', async () => {
    const res = await send(service.url, 'POST', '/mcp', { ...MCP_HEADERS, host: `evil.example.com:${port}`, origin: `http://evil.example.com:${port}` }, initialize);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'HOST_NOT_ALLOWED', details: { host: `evil.example.com:${port}` } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a paid route with that Host is 403 HOST_NOT_ALLOWED before any 402', async () => {
    const res = await send(service.url, 'POST', '/tokens', { host: 'evil.example.com', origin: 'http://evil.example.com', 'x-wallet-address': WALLET }, create);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('HOST_NOT_ALLOWED');
    expect(res.headers['payment-required']).toBeUndefined();
    // Not even without Origin: the Host is what a rebinding page cannot hide.
    expect((await send(service.url, 'POST', '/entrypoints/token_info', { host: 'evil.example.com' }, { tokenId: 'x' })).body.error.code).toBe('HOST_NOT_ALLOWED');
  });

  it('an Origin neither its own nor listed is 403 CORS_ORIGIN_NOT_ALLOWED on /mcp and the paid routes, even with a good Host', async () => {
    for (const [path, body, extra] of [
      ['/mcp', initialize, MCP_HEADERS],
      ['/tokens', create, {}],
      ['/entrypoints/token_buy_usd/invoke', { tokenId: 'x', usdAmount: '1' }, {}],
    ] as const) {
      const res = await send(service.url, 'POST', path, { ...extra, host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' }, body);
      expect(res.status, path).toBe(403);
      expect(res.body.error, path).toMatchObject({ code: 'CORS_ORIGIN_NOT_ALLOWED', details: { origin: 'http://evil.example.com' } });
    }
    // The request's own Host no longer makes an origin its own: a preflight naming evil for both is refused.
    const preflight = await send(service.url, 'OPTIONS', '/tokens', { host: 'evil.example.com', origin: 'http://evil.example.com', 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(403);
  });

  it('free reads still answer any Host, without a grant to a foreign origin', async () => {
    const res = await send(service.url, 'GET', '/tokens', { host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('what the service answers to goes on as before', () => {
  it('the loopback names and the listening port: /mcp initializes with Origin http://localhost:<port>', async () => {
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      const res = await send(service.url, 'POST', '/mcp', { ...MCP_HEADERS, host: `${name}:${port}`, origin: `http://${name}:${port}` }, initialize);
      expect(res.status, name).toBe(200);
      expect(res.body.result.serverInfo.name).toBe('x402-launchpad');
      expect(res.headers['access-control-allow-origin']).toBe(`http://${name}:${port}`);
    }
  });

  it('a paid route without Origin (an agent, curl) and one from a listed origin get their 402', async () => {
    expect((await send(service.url, 'POST', '/tokens', { 'x-wallet-address': WALLET }, create)).status).toBe(402);
    const listed = await send(service.url, 'POST', '/tokens', { origin: APP, 'x-wallet-address': WALLET }, create);
    expect(listed.status).toBe(402);
    expect(listed.headers['access-control-allow-origin']).toBe(APP);
  });

  it('a loopback origin on another port is not the service’s own', async () => {
    const res = await send(service.url, 'POST', '/tokens', { origin: `http://localhost:${port === 5173 ? 5174 : 5173}` }, create);
    expect(res.body.error.code).toBe('CORS_ORIGIN_NOT_ALLOWED');
  });

  it('behind a proxy: PUBLIC_URL’s host and origin, and ALLOWED_HOSTS, are answered to', async () => {
    const pub = await send(proxied.url, 'POST', '/tokens', { host: 'launchpad.example.com', origin: 'https://launchpad.example.com', 'x-wallet-address': WALLET }, create);
    expect(pub.status).toBe(402);
    expect(pub.headers['access-control-allow-origin']).toBe('https://launchpad.example.com');
    expect((await send(proxied.url, 'POST', '/tokens', { host: 'upstream.internal:8080', 'x-wallet-address': WALLET }, create)).status).toBe(402);
    expect((await send(proxied.url, 'POST', '/tokens', { host: 'evil.example.com' }, create)).body.error.code).toBe('HOST_NOT_ALLOWED');
  });
});

describe('the policy and its settings', () => {
  it('listening on every address: the address a connection reached is answered to, and its origin is own', () => {
    const policy = new OriginPolicy({ origins: [], listenHost: '0.0.0.0' });
    const local = { localAddress: '::ffff:10.0.0.5', localPort: 3000 };
    expect(policy.answersTo('10.0.0.5:3000', local)).toBe(true);
    expect(policy.answersTo('localhost', local)).toBe(true);
    expect(policy.answersTo('10.0.0.6:3000', local)).toBe(false);
    expect(policy.answersTo('', local)).toBe(false);
    expect(policy.isOwn('http://10.0.0.5:3000', local)).toBe(true);
    expect(policy.isOwn('https://10.0.0.5:3000', local)).toBe(false);
    expect(new OriginPolicy({ origins: [], listenHost: 'launchpad.lan' }).answersTo('LaunchPad.lan:3000', local)).toBe(true);
    expect(new OriginPolicy({ origins: [], allowedHosts: '*' }).answersTo('evil.example.com', local)).toBe(true);
  });

  it('ALLOWED_HOSTS takes host names or "*", and refuses anything else at start', () => {
    expect(loadConfig({ ALLOWED_HOSTS: 'Launchpad.internal, 10.0.0.5:3000, [::1]' }).allowedHosts).toEqual(['launchpad.internal', '10.0.0.5', '[::1]']);
    expect(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts).toBe('*');
    expect(loadConfig({}).allowedHosts).toEqual([]);
    for (const bad of ['https://a.example', 'a.example/x', 'a b', 'user@a.example']) expect(() => loadConfig({ ALLOWED_HOSTS: bad }), bad).toThrow(ConfigError);
  });
});
