/** The self-description of the API (manifest, OpenAPI) and the SSE event stream from the outbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';

const wallet = devAccount(5);
let service: RunningService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

async function createToken(symbol: string): Promise<string> {
  const res = await payingFetch(wallet)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ name: symbol, symbol }),
  });
  return (await json(res)).data.tokenId;
}

/** Reads an SSE stream until `until` matches the accumulated text (or 30 s pass). */
async function readStream(path: string, headers: Record<string, string>, until: RegExp, action?: () => Promise<unknown>) {
  const controller = new AbortController();
  const res = await fetch(`${service.url}${path}`, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => controller.abort(), 30_000);
  const acting = action?.();
  try {
    while (!until.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  } finally {
    clearTimeout(deadline);
    controller.abort();
    await acting;
  }
  return text;
}

describe('GET /entrypoints and /api/openapi.json', () => {
  it('lists every paid entrypoint with its price and input schema', async () => {
    const { data, operation } = await json(await fetch(`${service.url}/entrypoints`));
    expect(operation).toBe('list_entrypoints');
    // Every entrypoint of the catalogue (test/app/catalogue.test.ts lists them and their prices), in its order.
    const catalogue = [...service.application.entrypoints.values()];
    expect(catalogue.length).toBeGreaterThan(0);
    expect(data.map((e: any) => [e.name, e.price])).toEqual(catalogue.map((e) => [e.name, e.price(service.application.deps.settings)]));
    const buy = data.find((e: any) => e.name === 'token_buy_usd');
    expect(buy.inputSchema).toMatchObject({ type: 'object', required: ['tokenId', 'usdAmount'], additionalProperties: false });
    expect(buy.outputSchema.properties).toHaveProperty('tokensReceived');
  });

  it('serves an OpenAPI 3.1 document of every endpoint', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/health', '/tokens', '/tokens/{id}', '/positions', '/api/quote', '/api/events', '/entrypoints/token_sell/invoke']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    // The thread is read with GET; the creator's hide is a POST whose wallet only a proof names.
    expect(Object.keys(doc.paths['/tokens/{id}/comments'])).toEqual(['get']);
    const hide = doc.paths['/tokens/{id}/comments/{commentId}/hide'].post;
    expect(hide.parameters.find((p: any) => p.name === 'SIGN-IN-WITH-X')).toMatchObject({ in: 'header', required: true });
    expect(hide.parameters.map((p: any) => p.name)).not.toContain('wallet');
    expect(Object.keys(hide.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '404']));
    expect(doc.paths['/tokens'].post.requestBody.content['application/json'].schema.oneOf[0].required).toEqual(['name', 'symbol']);
    expect(doc.paths['/tokens'].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['network', 'state', 'creator', 'q', 'sort', 'limit', 'cursor']),
    );
  });
});

describe('GET /api/events', () => {
  it('streams events as they are committed and resumes from Last-Event-ID', async () => {
    let tokenId = '';
    // The stream starts at the log's last event, read before its headers are sent: a token
    // created once they are here is in it.
    const live = await readStream('/api/events', {}, /event: token\.created/, async () => {
      tokenId = await createToken('SSE');
    });
    expect(live).toMatch(/id: \d+\nevent: token\.created\ndata: \{/);
    const data = JSON.parse(/data: (.*)\n/.exec(live.slice(live.indexOf('event: token.created')))![1]!);
    expect(data).toMatchObject({ type: 'token.created', network: 'eip155:84532', tokenId });

    const second = await createToken('SSE2');
    const resumed = await readStream('/api/events', { 'last-event-id': '0' }, new RegExp(second));
    const ids = [...resumed.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids[0]).toBe(1);

    const filtered = await readStream(`/api/events?tokenId=${second}`, { 'last-event-id': '0' }, /event: token\.created/);
    expect(filtered).not.toContain(tokenId);
  }, 120_000); // three streams, each given up to 30 s

  it('refuses a malformed Last-Event-ID', async () => {
    const res = await fetch(`${service.url}/api/events`, { headers: { 'last-event-id': 'abc' } });
    expect(res.status).toBe(400);
  });
});

describe('stopping the service', () => {
  it('ends open event streams and lets an in-flight request finish, promptly', async () => {
    // A network detection that takes 500 ms keeps a request in flight while the service stops.
    let detecting = false;
    const local = await startTestService({
      ports: {
        detector: {
          detect: async () => {
            detecting = true;
            await new Promise((r) => setTimeout(r, 500));
            return { network: 'eip155:84532', reason: 'slow', checkedAt: new Date() };
          },
        },
      },
    });
    const stream = await fetch(`${local.url}/api/events`);
    const reader = stream.body!.getReader();
    await reader.read(); // the stream is open
    const inFlight = fetch(`${local.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'A', symbol: 'A' }),
    }).then((r) => r.status);
    await waitFor('the request in flight (at its network detection)', () => detecting);
    const started = Date.now();
    await local.stop();
    expect(await inFlight).toBe(402);
    for (;;) if ((await reader.read()).done) break; // the server ended the stream
    // Before the server's 10 s grace would have cut the open stream off (what a stream the stop
    // did not end would cost): a bound on what the stop waits for, not on the machine's speed.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
