/**
 * Clients that pay the first offer of any 402 (the Python SDK's default selector, docs/): a
 * testnet wallet that signs for production gets NETWORK_MISMATCH whose PAYMENT-REQUIRED offers
 * only its own network, so its next try succeeds. Every refused payment is an info log line with
 * the request id — never the signature.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { decodeBase64Json, devAccount, signPayment } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';

const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
let service: RunningService;
beforeAll(async () => {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  service = await startTestService({ ports: { logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } } });
});
afterAll(async () => {
  await service.stop();
});

it('a testnet wallet paying accepts[0] until it succeeds needs exactly one more try', async () => {
  const wallet = devAccount(5); // no production history: a testnet wallet
  const body = JSON.stringify({ name: 'First', symbol: 'FIRST' });
  const post = (headers: Record<string, string> = {}) =>
    fetch(`${service.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  let res = await post({ 'x-request-id': 'try-0' });
  const tries: number[] = [];
  for (let attempt = 1; res.status === 402 && attempt <= 3; attempt++) {
    const offered = decodeBase64Json<{ accepts: { network: string }[] }>(res.headers.get('payment-required'));
    tries.push(offered.accepts.length);
    if (attempt === 2) expect(offered.accepts.map((a) => a.network)).toEqual(['eip155:84532', 'eip155:84532', 'eip155:84532', 'eip155:84532']); // USDC, EURC; by exact, then by batch-settlement
    const signature = await signPayment(wallet, offered as never); // signs accepts[0]
    res = await post({ 'payment-signature': signature, 'x-request-id': `try-${attempt}` });
    if (attempt === 1) {
      expect(res.status).toBe(402);
      expect((await json(res.clone())).error).toMatchObject({ code: 'NETWORK_MISMATCH', details: { expected: 'eip155:84532', received: 'eip155:8453' } });
    }
  }
  expect(res.status).toBe(201);
  expect((await json(res)).data.network).toBe('eip155:84532');
  expect(tries).toEqual([6, 4]); // both networks (USDC and EURC each; batch-settlement in USDC) first, then only the wallet's (both schemes)

  const refused = lines.filter((l) => l.message === 'payment refused; nothing charged');
  expect(refused).toEqual([
    {
      level: 'info',
      message: 'payment refused; nothing charged',
      fields: { requestId: 'try-1', entrypoint: 'token_create', code: 'NETWORK_MISMATCH', reason: undefined, payer: wallet.address, network: 'eip155:8453' },
    },
  ]);
  expect(JSON.stringify(lines)).not.toMatch(/signature|0x[0-9a-f]{130}/i);
});
