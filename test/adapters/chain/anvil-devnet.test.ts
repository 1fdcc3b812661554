/**
 * The embedded devnet as an operator meets it: a crash of anvil loses no journaled transaction,
 * a taken port refuses to start, an anvil orphaned by a killed service is stopped, and an idle
 * chain keeps producing blocks (the reconciler's clock).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createTestClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { AnvilDevnet, devnetAccount, DevnetPortInUse } from '../../../src/adapters/chain/anvil/anvil-devnet.js';
import { rawTransactionsIn, TransactionJournal } from '../../../src/adapters/chain/anvil/journaled-rpc.js';
import { TESTNET } from '../../../src/domain/network.js';
import { freePorts } from '../../support/free-ports.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'devnet-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the transaction journal', () => {
  it('finds the signed transactions in a JSON-RPC body, one call or a batch', () => {
    expect(rawTransactionsIn('{"method":"eth_sendRawTransaction","params":["0x01"]}')).toEqual(['0x01']);
    expect(rawTransactionsIn('[{"method":"eth_call","params":[]},{"method":"eth_sendRawTransaction","params":["0x02"]}]')).toEqual(['0x02']);
    expect(rawTransactionsIn('not json')).toEqual([]);
  });

  it('skips a line torn by a crash and keeps the rest in order', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const j = new TransactionJournal(path);
    await j.append(['0xaa', '0xbb']);
    await j.close();
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"t":1,"raw":"0x');
    expect(new TransactionJournal(path).read().map((e) => e.raw)).toEqual(['0xaa', '0xbb']);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});

describe('AnvilDevnet', () => {
  it('kill -9 of both anvil processes right after transactions: a restart has every one of them', async () => {
    const dir = tempDir();
    const port = await freePorts();
    let devnet = await AnvilDevnet.start({ port, stateDir: dir });
    const wallet = devnetAccount(7).address;
    const before = await devnet.usdcBalance(TESTNET, wallet);
    for (let i = 0; i < 5; i++) await devnet.mint(TESTNET, wallet, 1_000_000n);
    expect(await devnet.usdcBalance(TESTNET, wallet)).toBe(before + 5_000_000n);
    // Before anvil's next 5-second state save.
    for (const pid of devnet.pids) process.kill(pid, 'SIGKILL');
    await devnet.stop();
    devnet = await AnvilDevnet.start({ port, stateDir: dir });
    try {
      expect(await devnet.usdcBalance(TESTNET, wallet)).toBe(before + 5_000_000n);
      // The chain's clock is back to now, not to the replayed blocks' times.
      const head = await devnet.publicClient(TESTNET).getBlock({ blockTag: 'latest' });
      expect(Math.abs(Number(head.timestamp) - Date.now() / 1000)).toBeLessThan(5);
    } finally {
      await devnet.stop();
    }
  }, 60_000);

  it('a second devnet on a taken port refuses to start, with one line naming DEVNET_PORT', async () => {
    const port = await freePorts();
    const first = await AnvilDevnet.start({ port });
    try {
      const second = AnvilDevnet.start({ port, stateDir: tempDir() });
      await expect(second).rejects.toBeInstanceOf(DevnetPortInUse);
      await expect(second).rejects.toThrow(`DEVNET_PORT ${port} is in use (another devnet?) — set DEVNET_PORT`);
      // The first one is untouched.
      expect(await first.publicClient(TESTNET).getChainId()).toBe(84532);
    } finally {
      await first.stop();
    }
  });

  it('an anvil left behind by a killed service is stopped by the next start on its data', async () => {
    const dir = tempDir();
    const port = await freePorts();
    const first = await AnvilDevnet.start({ port, stateDir: dir });
    const orphans = first.pids;
    // The service dies without stopping its chains: only its proxy (this process's) goes away.
    const internals = first as unknown as { processes: { proxy: Server }[] };
    for (const p of internals.processes) p.proxy.close();
    internals.processes.length = 0;
    expect(orphans.every(alive)).toBe(true);
    const next = await AnvilDevnet.start({ port, stateDir: dir });
    try {
      for (let i = 0; i < 100 && orphans.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
      expect(orphans.some(alive)).toBe(false);
    } finally {
      await next.stop();
    }
  }, 30_000);

  it('an idle chain keeps producing blocks, unless a test holds it still (automine off)', async () => {
    const devnet = await AnvilDevnet.start({ port: await freePorts(), idleBlockMs: 200 });
    try {
      const client = devnet.publicClient(TESTNET);
      const start = await client.getBlockNumber();
      for (let i = 0; i < 60 && (await client.getBlockNumber()) === start; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await client.getBlockNumber()).toBeGreaterThan(start);
      const test = createTestClient({ mode: 'anvil', transport: http(devnet.chains[TESTNET].rpcUrl) });
      await test.setAutomine(false);
      const held = await client.getBlockNumber();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await client.getBlockNumber()).toBe(held);
    } finally {
      await devnet.stop();
    }
  });
});
