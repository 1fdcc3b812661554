/**
 * A chain that stops answering, for real (docs/operations.md, "Health"; decision 0033): the
 * embedded devnet's anvil processes are killed under a running service with the in-process x402
 * facilitator. /readyz turns 503, a payment the client signed before the outage is answered 503
 * with Retry-After — not 402 PAYMENT_INVALID — and is never stored or charged, sell-authorization
 * is 503 instead of 500, and new paid requests are 503 before any payment is asked for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { devnetConfig, drainWorkers, json, ShiftableClock } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-obs-outage-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const wallet = devAccount(5);
let service: RunningService;

const post = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers },
    body: JSON.stringify(body),
  });

/** The chain answers a JSON-RPC call at the devnet's address. */
async function answers(network: typeof PRODUCTION | typeof TESTNET): Promise<boolean> {
  try {
    const res = await fetch(service.devnet!.chains[network].rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    return 'result' in ((await res.json()) as object);
  } catch {
    return false;
  }
}

async function expectOutage(res: Response) {
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('payment-required')).toBeNull();
  const body = await json(res);
  expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
  return body;
}

beforeAll(async () => {
  service = await startService(await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0' }), { ports: { clock, uow } });
}, 60_000);

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the chain stops answering', () => {
  it('readiness goes 503 and no payment is taken, refused as invalid, or charged while it is down', async () => {
    const created = await post('/tokens', { name: 'Blackout', symbol: 'BLK' }, {}, payingFetch(wallet));
    expect(created.status).toBe(201);
    const tokenId = (await json(created)).data.tokenId;
    await drainWorkers(service, clock, 3); // deployed
    const ready = await fetch(`${service.url}/readyz`);
    expect([ready.status, (await json(ready)).data.checks.chains]).toEqual([200, { [PRODUCTION]: 'ok', [TESTNET]: 'ok' }]);

    // The client signs while everything answers…
    const challenge = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' });
    expect(challenge.status).toBe(402);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    const signature = await signPayment(wallet, required);
    const nonce = decodeBase64Json<any>(signature).payload.authorization.nonce;

    // …and the chain dies before its payment arrives.
    for (const pid of service.devnet!.pids) process.kill(pid, 'SIGKILL');
    await waitFor('both chains to stop answering', async () => !(await answers(PRODUCTION)) && !(await answers(TESTNET)));

    await expectOutage(await fetch(`${service.url}/api/tokens/${tokenId}/sell-authorization?wallet=${wallet.address}&tokens=1`));
    await expectOutage(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, { 'payment-signature': signature }));
    expect(await uow.run((s) => s.payments.findByNonce(TESTNET, wallet.address, nonce))).toBeNull();

    clock.offsetMs += 1_100; // the next round of probes
    const notReady = await fetch(`${service.url}/readyz`);
    const body = await expectOutage(notReady);
    expect(body.error.details.checks.chains).toEqual({ [PRODUCTION]: 'down', [TESTNET]: 'down' });

    // Known now: 503 before any payment is asked for, on every paid route.
    await expectOutage(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }));
    await expectOutage(await post('/tokens', { name: 'Never', symbol: 'NEVER' }));
    expect((await json(await fetch(`${service.url}/health`))).data.checks.chain).toBe('down');
    // The process itself lives, and free reads are served.
    expect((await fetch(`${service.url}/livez`)).status).toBe(200);
    expect((await fetch(`${service.url}/tokens/${tokenId}`)).status).toBe(200);
  }, 120_000);
});
