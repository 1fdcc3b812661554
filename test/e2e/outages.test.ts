/**
 * Honest health (docs/operations.md, "Health"; decision 0033): /livez and /readyz, and a chain or
 * facilitator that does not answer turning every request that would need it into 503
 * SERVICE_UNAVAILABLE with Retry-After — before the 402 when the outage is known, after the
 * signature when it is found during verification — never a 402 PAYMENT_INVALID, never a 500, and
 * never a charge. Over the fakes; the devnet version kills anvil (outages-devnet.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeChainProbe } from '../../src/adapters/chain/fake/fake-chain-probe.js';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { PaymentPayload, PaymentRequirements, VerifyResult } from '../../src/ports/facilitator.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';
import { pollUntil, waitFor } from '../support/wait.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';

const testnetWallet = devAccount(6);
const productionWallet = devAccount(1);

/** The fake facilitator, with a switch that makes it unreachable or makes its verification fail as a dead chain's would. */
class SwitchableFacilitator extends FakeFacilitator {
  unreachable = false;
  chainDeadDuringVerify = false;
  override async supported() {
    if (this.unreachable) throw new Error('connect ECONNREFUSED');
    return super.supported();
  }
  override async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    if (this.unreachable) {
      const { FacilitatorError } = await import('../../src/domain/errors.js');
      throw new FacilitatorError('The facilitator did not answer verify (refused).');
    }
    if (this.chainDeadDuringVerify) return { isValid: false, invalidReason: 'invalid_exact_evm_transaction_simulation_failed' };
    return super.verify(payload, requirements);
  }
}

let service: RunningService;
let clock: ShiftableClock;
let chain: FakeChainProbe;
let facilitator: SwitchableFacilitator;
let testnetToken: string;

const post = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** A second later: the next read of the dependencies probes again. */
const nextRound = () => (clock.offsetMs += 1_100);
/** The service takes a round of probes (as a load balancer's /readyz poll makes it), so it knows what answers. */
async function probed() {
  nextRound();
  await fetch(`${service.url}/readyz`);
}

/** A 503 for an outage, as every route answers it. */
async function expectOutage(res: Response, dependency: 'chain' | 'facilitator') {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('payment-required')).toBeNull();
  const body = await json(res);
  expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(body.error.details.dependency).toBe(dependency);
  return body;
}

beforeAll(async () => {
  clock = new ShiftableClock();
  chain = new FakeChainProbe();
  facilitator = new SwitchableFacilitator({ clock, defaultBalance: 10_000_000_000n });
  service = await startTestService({ ports: { clock, facilitator, chainProbe: chain } });
  const created = await post('/tokens', { name: 'Outage', symbol: 'OUT' }, { 'x-wallet-address': testnetWallet.address }, payingFetch(testnetWallet));
  expect(created.status).toBe(201);
  testnetToken = (await json(created)).data.tokenId;
  await settle(service); // deployed, so it can be sold
});
afterAll(async () => {
  await service.stop();
});
beforeEach(async () => {
  chain.set(PRODUCTION, 'ok');
  chain.set(TESTNET, 'ok');
  facilitator.unreachable = false;
  facilitator.chainDeadDuringVerify = false;
  await probed();
});

describe('liveness and readiness', () => {
  it('/livez answers while the process runs, /readyz names every check', async () => {
    const live = await fetch(`${service.url}/livez`);
    expect([live.status, (await json(live)).data]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await json(ready)).data).toEqual({
      ready: true,
      checks: { database: 'ok', chains: { [PRODUCTION]: 'ok', [TESTNET]: 'ok' }, facilitator: 'ok' },
    });
  });

  it('/readyz is 503 with Retry-After while a chain is down, and ready again when it answers', async () => {
    chain.set(TESTNET, 'down');
    nextRound();
    const res = await fetch(`${service.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = await json(res);
    expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: `Not ready: chain ${TESTNET}: down.` });
    expect(body.error.details.checks.chains).toEqual({ [PRODUCTION]: 'ok', [TESTNET]: 'down' });
    // /health keeps its document: the chain degraded, the database up, so 200.
    const health = await json(await fetch(`${service.url}/health`));
    expect(health.data.checks).toMatchObject({ database: 'ok', chain: 'degraded' });
    chain.set(TESTNET, 'ok');
    nextRound();
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });
});

describe('a chain that does not answer', () => {
  it('a 402 offers only the networks that answer; a request for a down network is 503 before any payment is asked for', async () => {
    chain.set(PRODUCTION, 'down');
    await probed();
    const both = await post('/tokens', { name: 'Only', symbol: 'ONLY' });
    expect(both.status).toBe(402);
    expect([...new Set(decodeBase64Json<any>(both.headers.get('payment-required')).accepts.map((a: any) => a.network))]).toEqual([TESTNET]);
    await expectOutage(await post('/tokens', { name: 'Prod', symbol: 'PROD' }, { 'x-wallet-address': productionWallet.address }), 'chain');

    chain.set(TESTNET, 'down');
    await probed();
    await expectOutage(await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }), 'chain');
    await expectOutage(await post('/entrypoints/token_info', { tokenId: testnetToken }), 'chain');
  });

  it('a payment signed before the outage is answered 503 and never charged', async () => {
    const challenge = await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }, { 'x-wallet-address': testnetWallet.address });
    expect(challenge.status).toBe(402);
    const signature = await signPayment(testnetWallet, decodeBase64Json(challenge.headers.get('payment-required')));
    const before = facilitator.balanceOf(TESTNET, testnetWallet.address);
    chain.set(TESTNET, 'down');
    await probed(); // a round after the outage: the service knows
    await expectOutage(await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }, { 'payment-signature': signature }), 'chain');
    expect(facilitator.balanceOf(TESTNET, testnetWallet.address)).toBe(before);
  });

  it('a verification that fails because the chain died meanwhile is 503, not 402 PAYMENT_INVALID', async () => {
    const challenge = await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }, { 'x-wallet-address': testnetWallet.address });
    const signature = await signPayment(testnetWallet, decodeBase64Json(challenge.headers.get('payment-required')));
    await probed(); // the last round says the chain answers…
    chain.set(TESTNET, 'down'); // …and it dies before the payment arrives
    facilitator.chainDeadDuringVerify = true;
    const before = facilitator.balanceOf(TESTNET, testnetWallet.address);
    await expectOutage(await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }, { 'payment-signature': signature }), 'chain');
    expect(facilitator.balanceOf(TESTNET, testnetWallet.address)).toBe(before);

    // The same failure with the chain up is the payment's own: 402 PAYMENT_INVALID.
    chain.set(TESTNET, 'ok');
    await probed();
    const invalid = await post('/entrypoints/token_buy_usd', { tokenId: testnetToken, usdAmount: '1' }, { 'payment-signature': signature });
    expect(invalid.status).toBe(402);
    expect((await json(invalid)).error.code).toBe('PAYMENT_INVALID');
  });

  it('sell-authorization is 503 for a token whose chain is down, never 500', async () => {
    const url = `${service.url}/api/tokens/${testnetToken}/sell-authorization?wallet=${testnetWallet.address}&tokens=1`;
    expect((await fetch(url)).status).toBe(200);
    chain.set(TESTNET, 'down');
    await probed();
    await expectOutage(await fetch(url), 'chain');
  });
});

describe('a facilitator that does not answer', () => {
  it('/readyz is 503, paid routes are 503 before the 402 and after a signature, nothing charged', async () => {
    const challenge = await post('/tokens', { name: 'Late', symbol: 'LATE' }, { 'x-wallet-address': testnetWallet.address });
    const signature = await signPayment(testnetWallet, decodeBase64Json(challenge.headers.get('payment-required')));
    facilitator.unreachable = true;
    const before = facilitator.balanceOf(TESTNET, testnetWallet.address);
    // Found during verification (the last round still says it answers): 503, not 502.
    await expectOutage(await post('/tokens', { name: 'Late', symbol: 'LATE' }, { 'payment-signature': signature }), 'facilitator');
    // Known: before any payment is asked for.
    await expectOutage(await post('/tokens', { name: 'Late', symbol: 'LATE' }), 'facilitator');
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await json(ready)).error.details.checks.facilitator).toBe('down');
    expect(facilitator.balanceOf(TESTNET, testnetWallet.address)).toBe(before);
    // Free reads go on.
    expect((await fetch(`${service.url}/tokens/${testnetToken}`)).status).toBe(200);
  });
});

describe('a remote facilitator that is gone (the real HTTP adapter, nothing listening)', () => {
  it('is not ready, and answers 503 instead of a 402 it could not honour', async () => {
    const { HttpFacilitator } = await import('../../src/adapters/facilitator/http/http-facilitator.js');
    const { freePorts } = await import('../support/free-ports.js');
    const gone = await startTestService({ ports: { facilitator: new HttpFacilitator({ url: `http://127.0.0.1:${await freePorts(1)}` }), chainProbe: new FakeChainProbe() } });
    try {
      const ready = await fetch(`${gone.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await json(ready)).error.details.checks).toMatchObject({ database: 'ok', facilitator: 'down' });
      const res = await fetch(`${gone.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Gone","symbol":"GONE"}' });
      expect([res.status, res.headers.get('retry-after'), (await json(res)).error.details.dependency]).toEqual([503, '5', 'facilitator']);
    } finally {
      await gone.stop();
    }
  });
});

describe('a worker process', () => {
  it('is ready while its passes keep ending, and not while one hangs past the stall bound', async () => {
    const { FakeTokenIssuer } = await import('../../src/adapters/token/fake/fake-token-issuer.js');
    const { WORKER_STALL_MS } = await import('../../src/app/workers/worker-scheduler.js');
    const workerClock = new ShiftableClock();
    let release: () => void = () => undefined;
    let hang = false;
    let hanging = false;
    const issuer = new FakeTokenIssuer({ clock: workerClock });
    const worker = await startTestService(
      {
        ports: { clock: workerClock, tokenIssuer: issuer, chainProbe: new FakeChainProbe() },
        timing: { workerIntervalMs: 20 },
        // A deployment whose chain call never answers while `hang` is set: the pass waits on it.
        wrapTokenIssuer: (inner) =>
          Object.assign(Object.create(inner) as typeof inner, {
            isDeployed: async (network: never, address: string) => {
              if (hang) {
                hanging = true;
                await new Promise<void>((r) => (release = r));
              }
              return inner.isDeployed(network, address);
            },
          }),
      },
      { WORKERS: 'true' },
    );
    try {
      const workersCheck = async () => {
        workerClock.offsetMs += 1_100; // a new round of probes
        const res = await fetch(`${worker.url}/readyz`);
        return [res.status, (await json(res))] as const;
      };
      let [status, ready] = await workersCheck();
      expect([status, ready.data.checks.workers]).toEqual([200, 'ok']);

      hang = true;
      const created = await payingFetch(testnetWallet)(`${worker.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': testnetWallet.address },
        body: JSON.stringify({ name: 'Stuck', symbol: 'STUCK' }),
      });
      expect(created.status).toBe(201);
      await waitFor('the next pass waiting on the deployment', () => hanging);
      workerClock.offsetMs += WORKER_STALL_MS;
      [status, ready] = await workersCheck();
      expect([status, ready.error.details.checks.workers]).toEqual([503, 'down']);

      hang = false;
      release();
      await pollUntil(async () => (await workersCheck())[0] === 200); // the pass ends, the next ones too
      [status, ready] = await workersCheck();
      expect([status, ready.data.checks.workers]).toEqual([200, 'ok']);
    } finally {
      hang = false;
      release();
      await worker.stop();
    }
  });
});

describe('real RPCs that do not answer (RPC_URL_* at a port nothing listens on)', () => {
  it('/health probes them (chain down), /readyz is 503, and a paid route is 503 before the 402', async () => {
    const { startService } = await import('../../src/bootstrap/compose.js');
    const { loadConfig } = await import('../../src/bootstrap/config/config.js');
    const { MemoryUnitOfWork } = await import('../../src/adapters/persistence/memory/memory-unit-of-work.js');
    const { freePorts } = await import('../support/free-ports.js');
    const dead = `http://127.0.0.1:${await freePorts(1)}`;
    const treasury = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const config = loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      WORKERS: 'false',
      RPC_URL_8453: dead,
      RPC_URL_84532: dead,
      PAY_TO_8453: treasury,
      PAY_TO_84532: treasury,
      LAUNCH_FACTORY_8453: treasury,
      LAUNCH_FACTORY_84532: treasury,
      TREASURY_KEY: `0x${'11'.repeat(32)}`,
      QUOTE_PROVIDERS: 'fixed',
    });
    const remote = await startService(config, { ports: { uow: new MemoryUnitOfWork() } });
    try {
      const health = await json(await fetch(`${remote.url}/health`));
      expect([health.data.status, health.data.checks.chain]).toEqual(['degraded', 'down']);
      const ready = await fetch(`${remote.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await json(ready)).error.details.checks.chains).toEqual({ [PRODUCTION]: 'down', [TESTNET]: 'down' });
      const res = await fetch(`${remote.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Remote","symbol":"RMT"}' });
      expect([res.status, res.headers.get('retry-after'), (await json(res)).error.details.dependency]).toEqual([503, '5', 'chain']);
    } finally {
      await remote.stop();
    }
  });
});
