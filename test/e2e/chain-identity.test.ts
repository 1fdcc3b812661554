/**
 * The books know their chain (docs/decisions/0066; docs/operations.md, "The books know their
 * chain"). The first start on a database records which chain each network's books are kept on;
 * a restart on the same chain — the devnet restored from its saved state — starts, while a chain
 * that is not that one is refused in one line naming the network and what differs: the devnet
 * started over after `DATA_DIR/devnet` was deleted (that line says to delete the whole
 * DATA_DIR), a node answering another chain id. A chain that changes under a running service
 * turns /health into a 503 naming it, and no payment is asked for on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeChainProbe } from '../../src/adapters/chain/fake/fake-chain-probe.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService } from '../../src/bootstrap/compose.js';
import { StartupError } from '../../src/bootstrap/startup-error.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { devnetConfig, json, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount } from '../support/x402-client.js';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

const GENESIS = /0x[0-9a-f]{64}/.source;

describe('a start on a chain that is not the books', () => {
  it('the devnet restored from its state starts; deleting DATA_DIR/devnet alone is refused in one line that says to delete the whole DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-chain-identity-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = await devnetConfig(dataDir);
    const first = await startService(config);
    const genesis = (await first.devnet!.publicClient(TESTNET).getBlock({ blockNumber: 0n })).hash;
    await first.stop();

    // The same chains, loaded from their saved state: the same books.
    const again = await startService(config);
    expect((await again.devnet!.publicClient(TESTNET).getBlock({ blockNumber: 0n })).hash).toBe(genesis);
    expect((await fetch(`${again.url}/health`)).status).toBe(200);
    await again.stop();

    // What docs/operations.md once said to do to start over: the chains go, the books stay.
    rmSync(join(dataDir, 'devnet'), { recursive: true, force: true });
    const refused = await startService(config).then(
      (s) => s.stop().then(() => null),
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StartupError);
    const line = (refused as Error).message;
    expect(line).not.toContain('\n');
    for (const network of [PRODUCTION, TESTNET]) {
      expect(line).toMatch(new RegExp(`the chain of ${network} is not the one this database's books were kept on \\(genesis block ${GENESIS} here vs ${genesis} recorded\\)`));
    }
    expect(line).toContain(
      `— the devnet's state and journal in DATA_DIR/devnet were deleted or replaced and cannot be rebuilt: to start over, stop the service and delete the whole DATA_DIR ${dataDir} (its service.db holds the books of the chains that are gone)`,
    );

    // Deleting the whole DATA_DIR starts over.
    rmSync(dataDir, { recursive: true, force: true });
    const fresh = await startService(config);
    expect((await fetch(`${fresh.url}/health`)).status).toBe(200);
    await fresh.stop();
  }, 120_000);

  it('an RPC answering another chain id is refused, naming the network and both ids; ACCEPT_SETTINGS_CHANGE=CHAIN_<id> takes it deliberately', async () => {
    const uow = new MemoryUnitOfWork();
    await (await startTestService({ ports: { uow, chainProbe: new FakeChainProbe() } })).stop();
    const other = new FakeChainProbe();
    other.becomes(TESTNET, { chainId: 1 });
    await expect(startTestService({ ports: { uow, chainProbe: other } })).rejects.toThrow(
      new StartupError(
        "the chain of eip155:84532 is not the one this database's books were kept on (chain id 1 here vs 84532 recorded) — point RPC_URL_84532 at a node of the chain the books were kept on; to keep these books on this chain regardless, start once with ACCEPT_SETTINGS_CHANGE=CHAIN_84532 (docs/operations.md, \"The books know their chain\")",
      ),
    );
    const gone = new FakeChainProbe('0x00000000000000000000000000000000000f0c70');
    await expect(startTestService({ ports: { uow, chainProbe: gone } })).rejects.toThrow(
      "the chain of eip155:8453 is not the one this database's books were kept on (the LaunchFactory 0x4c61756e6368466163746f727900000000000000 has no code here); the chain of eip155:84532",
    );
    await (await startTestService({ ports: { uow, chainProbe: other } }, { ACCEPT_SETTINGS_CHANGE: 'CHAIN_84532' })).stop();
    // Recorded as it is now: the next start agrees without being told.
    await (await startTestService({ ports: { uow, chainProbe: other } })).stop();
  });
});

describe('a chain that changes under a running service', () => {
  it('/health answers 503 naming the network and what differs, /readyz is not ready, no payment is asked for on it; back when it is the books chain again', async () => {
    const clock = new ShiftableClock();
    const chain = new FakeChainProbe();
    const service = await startTestService({ ports: { clock, chainProbe: chain } });
    try {
      const health = async () => {
        const res = await fetch(`${service.url}/health`);
        return { status: res.status, data: (await json(res)).data };
      };
      expect(await health()).toMatchObject({ status: 200, data: { status: 'ok' } });
      expect((await health()).data.foreignChains).toBeUndefined();

      chain.becomes(TESTNET, { genesisHash: `0x${'77'.repeat(32)}` });
      clock.offsetMs += 1_100; // the next round: the identity was asked less than 30 s ago, so not yet
      expect((await health()).status).toBe(200);
      clock.offsetMs += 30_000;
      const foreign = await health();
      expect(foreign.status).toBe(503);
      expect(foreign.data).toMatchObject({
        status: 'degraded',
        checks: { database: 'ok', chain: 'degraded' },
        foreignChains: { [TESTNET]: expect.stringMatching(new RegExp(`^genesis block 0x7{64} here vs ${GENESIS} recorded$`)) },
      });
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await json(ready)).error.details.checks.chains).toEqual({ [PRODUCTION]: 'ok', [TESTNET]: 'down' });
      // A testnet wallet is asked for no payment on a chain that is not the books'.
      const paid = await fetch(`${service.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': devAccount(6).address },
        body: JSON.stringify({ name: 'Elsewhere', symbol: 'ELSE' }),
      });
      expect(paid.status).toBe(503);
      expect(paid.headers.get('payment-required')).toBeNull();
      expect((await json(paid)).error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'chain' } });

      chain.becomes(TESTNET, null);
      clock.offsetMs += 31_000;
      const back = await health();
      expect(back).toMatchObject({ status: 200, data: { status: 'ok' } });
      expect(back.data.foreignChains).toBeUndefined();
    } finally {
      await service.stop();
    }
  });
});

describe('a chain that did not answer at start', () => {
  it('is recorded by the first probe round it answers in, on an empty database; on books kept elsewhere, a round finds it foreign (503 naming it)', async () => {
    for (const books of ['none', 'elsewhere'] as const) {
      const clock = new ShiftableClock();
      const uow = new MemoryUnitOfWork();
      if (books === 'elsewhere') {
        // An earlier start recorded the testnet's chain as another one.
        const other = new FakeChainProbe();
        other.becomes(TESTNET, { genesisHash: `0x${'55'.repeat(32)}` });
        const first = await startTestService({ ports: { clock, chainProbe: other, uow } });
        await first.stop();
      }
      const chain = new FakeChainProbe();
      chain.set(TESTNET, 'down');
      const service = await startTestService({ ports: { clock, chainProbe: chain, uow } });
      try {
        expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toMatchObject(books === 'none' ? {} : { genesisHash: `0x${'55'.repeat(32)}` });
        if (books === 'none') expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toBeNull();
        chain.set(TESTNET, 'ok');
        clock.offsetMs += 31_000;
        const res = await fetch(`${service.url}/health`);
        const body = await json(res);
        if (books === 'none') {
          expect(res.status).toBe(200);
          expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toMatchObject({ network: TESTNET });
        } else {
          expect(res.status).toBe(503);
          expect(body.data.foreignChains).toEqual({ [TESTNET]: expect.stringMatching(new RegExp(`^genesis block ${GENESIS} here vs 0x5{64} recorded$`)) });
        }
      } finally {
        await service.stop();
      }
    }
  });
});
