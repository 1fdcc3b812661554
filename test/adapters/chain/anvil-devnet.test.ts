/**
 * The embedded devnet as an operator meets it: a crash of anvil loses no journaled transaction
 * and is logged, a taken port refuses to start, an anvil orphaned by a killed service is stopped
 * (and nothing else a pid file names), and an idle chain keeps producing blocks (the
 * reconciler's clock).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createTestClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { DevnetPortInUse } from '../../../src/adapters/chain/anvil/anvil-devnet.js';
import { ANVIL_VERSION, anvilPackage } from '../../../src/adapters/chain/anvil/anvil-process.js';
import { devnetAccount } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { rawTransactionsIn, TransactionJournal } from '../../../src/adapters/chain/anvil/journaled-rpc.js';
import { PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import type { Logger } from '../../../src/ports/logger.js';
import { TestDevnet } from '../../support/devnet.js';
import { freePorts } from '../../support/free-ports.js';
import { pollUntil, waitFor } from '../../support/wait.js';

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

/** A logger that keeps what the devnet reports. */
function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the transaction journal', () => {
  it('finds the signed transactions in a JSON-RPC body, one call or a batch', () => {
    expect(rawTransactionsIn('{"method":"eth_sendRawTransaction","params":["0x01"]}')).toEqual(['0x01']);
    expect(rawTransactionsIn('[{"method":"eth_call","params":[]},{"method":"eth_sendRawTransaction","params":["0x02"]}]')).toEqual(['0x02']);
    expect(rawTransactionsIn('not json')).toEqual([]);
  });

  it('an append after a compaction lands in the compacted file (the one a replay reads)', async () => {
    const path = join(tempDir(), 'j.jsonl');
    const j = new TransactionJournal(path);
    await j.append(['0xaa']); // the append handle is open now
    await j.compact(0);
    await j.append(['0xbb']);
    await j.close();
    expect(new TransactionJournal(path).read().map((e) => e.raw)).toEqual(['0xaa', '0xbb']);
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
    const logger = recordingLogger();
    let devnet = await TestDevnet.start({ port, stateDir: dir, logger });
    const wallet = devnetAccount(7).address;
    const before = await devnet.usdcBalance(TESTNET, wallet);
    for (let i = 0; i < 5; i++) await devnet.mint(TESTNET, wallet, 1_000_000n);
    expect(await devnet.usdcBalance(TESTNET, wallet)).toBe(before + 5_000_000n);
    // Before anvil's next 5-second state save.
    const killed = devnet.pids;
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    await pollUntil(() => logger.lines.filter((l) => l.level === 'error').length >= 2, { stepMs: 50 });
    // The service's chains died under it: said as errors, one per chain, not found out by a failed payment.
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.message).sort()).toEqual([
      'devnet eip155:84532: anvil exited unexpectedly — chain 84532 is down',
      'devnet eip155:8453: anvil exited unexpectedly — chain 8453 is down',
    ]);
    await devnet.stop();
    const restarting = Math.floor(Date.now() / 1000);
    logger.lines.length = 0;
    devnet = await TestDevnet.start({ port, stateDir: dir, logger });
    try {
      expect(await devnet.usdcBalance(TESTNET, wallet)).toBe(before + 5_000_000n);
      // The chain's clock is back to now — the restart's time, not the replayed blocks' — however
      // long the restart took on a loaded machine.
      const head = await devnet.publicClient(TESTNET).getBlock({ blockTag: 'latest' });
      expect(Number(head.timestamp)).toBeGreaterThanOrEqual(restarting - 1);
      expect(Number(head.timestamp)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    } finally {
      await devnet.stop();
    }
    // A stop is no crash.
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 60_000);

  it("keeps the chain's own genesis block (decision 0066): across restarts, from a state saved with anvil's genesis of a later start beside it, rebuilt from the journal alone; a new chain only once state and journal are gone", async () => {
    const dir = tempDir();
    const port = await freePorts();
    const logger = recordingLogger();
    const wallet = devnetAccount(8).address;
    const state = join(dir, 'anvil-84532.json');
    let devnet = await TestDevnet.start({ port, stateDir: dir, logger });
    const genesisOf = async (d: TestDevnet) => (await d.publicClient(TESTNET).getBlock({ blockNumber: 0n })).hash;
    const geneses = () => (JSON.parse(readFileSync(state, 'utf8')) as { blocks: { header: { number: string; timestamp: string } }[] }).blocks.filter((b) => b.header.number === '0x0');
    const own = await genesisOf(devnet);
    const before = await devnet.usdcBalance(TESTNET, wallet);
    await devnet.mint(TESTNET, wallet, 7n);
    await devnet.stop();
    expect(geneses()).toHaveLength(1);

    const again = async () => {
      devnet = await TestDevnet.start({ port, stateDir: dir, logger });
      try {
        const head = await devnet.publicClient(TESTNET).getBlock({ blockTag: 'latest' });
        expect(Number(head.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 60); // the clock is now's, not the genesis's
        return { genesis: await genesisOf(devnet), balance: await devnet.usdcBalance(TESTNET, wallet) };
      } finally {
        await devnet.stop();
      }
    };
    expect(await again()).toEqual({ genesis: own, balance: before + 7n });
    expect(geneses()).toHaveLength(1);

    // As an earlier version saved it: anvil's genesis of a later start listed after the chain's own (anvil answers the last).
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { blocks: { header: { number: string; timestamp: string } }[] };
    const [first] = geneses();
    saved.blocks.push({ ...first!, header: { ...first!.header, timestamp: `0x${(BigInt(first!.header.timestamp) + 600n).toString(16)}` } });
    writeFileSync(state, JSON.stringify(saved));
    expect(await again()).toEqual({ genesis: own, balance: before + 7n });
    expect(geneses()).toHaveLength(1);

    // The state lost, the journal kept: rebuilt on its own genesis block.
    rmSync(state);
    rmSync(join(dir, 'anvil-84532.baseline.json'));
    logger.lines.length = 0;
    expect(await again()).toEqual({ genesis: own, balance: before + 7n });
    expect(logger.lines.map((l) => l.message)).toContain(`devnet eip155:84532: rebuilding from its own genesis block ${own} (${join(dir, 'genesis-84532.json')})`);

    // State and journal gone: a new chain, which no restart makes the old one again.
    for (const f of ['anvil-84532.json', 'anvil-84532.baseline.json', 'journal-84532.jsonl']) rmSync(join(dir, f), { force: true });
    const fresh = await again();
    expect(fresh.genesis).not.toBe(own);
    expect(fresh.balance).toBe(before);
  }, 120_000);

  it('a second devnet on a taken port refuses to start, with one line naming DEVNET_PORT', async () => {
    const port = await freePorts();
    const first = await TestDevnet.start({ port });
    try {
      const second = TestDevnet.start({ port, stateDir: tempDir() });
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
    // (Its own report of the chains dying when they are stopped below goes nowhere.)
    const first = await TestDevnet.start({ port, stateDir: dir, logger: recordingLogger() });
    const orphans = first.pids;
    // The service dies without stopping its chains: only its proxy (this process's) goes away.
    const internals = first.devnet as unknown as { processes: { proxy: Server }[] };
    for (const p of internals.processes) p.proxy.close();
    internals.processes.length = 0;
    expect(orphans.every(alive)).toBe(true);
    // The caller holds the data directory's lock (as startService does): their service is gone.
    const logger = recordingLogger();
    const next = await TestDevnet.start({ port, stateDir: dir, stateDirLocked: true, logger });
    try {
      await pollUntil(() => !orphans.some(alive), { stepMs: 50 });
      expect(orphans.some(alive)).toBe(false);
      expect(logger.lines.filter((l) => l.message.includes('stopping anvil pid')).map((l) => l.message)).toEqual(
        orphans.map((pid, i) => `devnet ${['eip155:8453', 'eip155:84532'][i]}: stopping anvil pid ${pid}, left running on ${join(dir, `anvil-${[8453, 84532][i]}.json`)} by a service that is gone`),
      );
    } finally {
      await next.stop();
    }
  }, 30_000);

  it('a pid file naming a process that is not this state\'s anvil (another program, another devnet\'s anvil) signals nothing', async () => {
    const other = await TestDevnet.start({ port: await freePorts(), stateDir: tempDir() });
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const dir = tempDir();
    // As a pid reused since the service that wrote these files died.
    writeFileSync(join(dir, 'anvil-8453.pid'), String(sleeper.pid));
    writeFileSync(join(dir, 'anvil-84532.pid'), String(other.pids[1]));
    const logger = recordingLogger();
    let devnet: TestDevnet | null = null;
    try {
      devnet = await TestDevnet.start({ port: await freePorts(), stateDir: dir, stateDirLocked: true, logger });
      expect(alive(sleeper.pid!)).toBe(true);
      expect(other.pids.every(alive)).toBe(true);
      expect(await other.publicClient(TESTNET).getChainId()).toBe(84532);
      expect(logger.lines.map((l) => l.message).filter((m) => m.includes('.pid names pid'))).toEqual([
        `devnet eip155:8453: ${join(dir, 'anvil-8453.pid')} names pid ${sleeper.pid}, which is not this state's anvil (or cannot be checked): left alone`,
        `devnet eip155:84532: ${join(dir, 'anvil-84532.pid')} names pid ${other.pids[1]}, which is not this state's anvil (or cannot be checked): left alone`,
      ]);
    } finally {
      sleeper.kill('SIGKILL');
      await devnet?.stop();
      await other.stop();
    }
  }, 60_000);

  it('an idle chain keeps producing blocks, unless a test holds it still (automine off)', async () => {
    const devnet = await TestDevnet.start({ port: await freePorts(), idleBlockMs: 200 });
    try {
      const client = devnet.publicClient(TESTNET);
      const start = await client.getBlockNumber();
      await pollUntil(async () => (await client.getBlockNumber()) > start, { stepMs: 100 });
      expect(await client.getBlockNumber()).toBeGreaterThan(start);
      const test = createTestClient({ mode: 'anvil', transport: http(devnet.chains[TESTNET].rpcUrl) });
      await test.setAutomine(false);
      // A beat that looked at this chain before automine went off may still mine one block: let the
      // other chain make an idle block first (the heartbeat looks at both in turn), then hold.
      const other = devnet.publicClient(PRODUCTION);
      const before = await other.getBlockNumber();
      await waitFor('an idle block on the other chain', async () => (await other.getBlockNumber()) > before, { stepMs: 100 });
      const held = await client.getBlockNumber();
      // Held still while the other chain makes two idle blocks: the heartbeat, which looks at both
      // chains in turn, has looked at this one in between — counted in beats, not milliseconds.
      const from = await other.getBlockNumber();
      await waitFor('two idle blocks on the other chain', async () => (await other.getBlockNumber()) >= from + 2n, { stepMs: 100 });
      expect(await client.getBlockNumber()).toBe(held);
    } finally {
      await devnet.stop();
    }
  }, 60_000); // idle blocks come every 2 s or so here, not every 200 ms: the heartbeat mines when the head's timestamp is 200 ms old
});

/** Another devnet's node, as far as a JSON-RPC client can tell: it answers with the chain id we expect. */
async function impostor(port: number, chainId: number): Promise<{ server: Server; methods: string[] }> {
  const methods: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      methods.push(call.method);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method === 'eth_chainId' ? `0x${chainId.toString(16)}` : '0x' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, methods };
}

describe('AnvilDevnet.start on a port another node answers (#16.1)', () => {
  for (const [label, offset, chainId] of [
    ["chain 8453's port", 0, 8453],
    ["chain 84532's port (the next one)", 1, 84532],
  ] as const) {
    it(`refuses when ${label} is taken, asks that node nothing, and starts no anvil`, async () => {
      const port = await freePorts();
      const other = await impostor(port + offset, chainId);
      try {
        const e = await TestDevnet.start({ port, stateDir: tempDir() }).then(
          async (d) => (await d.stop(), null),
          (err: unknown) => err,
        );
        expect(e).toBeInstanceOf(DevnetPortInUse);
        expect((e as Error).message).toBe(
          offset === 0
            ? `DEVNET_PORT ${port} is in use (another devnet?) — set DEVNET_PORT`
            : `port ${port + 1} (DEVNET_PORT + 1, chain 84532) is in use (another devnet?) — set DEVNET_PORT`,
        );
        expect(other.methods).toEqual([]);
      } finally {
        await new Promise((r) => other.server.close(r));
      }
    }, 30_000);
  }
});

describe('anvil packages', () => {
  it('names the platform package the way @foundry-rs/anvil does, and package.json pins the tested version', () => {
    expect(anvilPackage('linux', 'x64')).toBe('@foundry-rs/anvil-linux-amd64');
    expect(anvilPackage('linux', 'arm64')).toBe('@foundry-rs/anvil-linux-arm64');
    expect(anvilPackage('darwin', 'arm64')).toBe('@foundry-rs/anvil-darwin-arm64');
    expect(anvilPackage('darwin', 'x64')).toBe('@foundry-rs/anvil-darwin-amd64');
    expect(anvilPackage('win32', 'x64')).toBe('@foundry-rs/anvil-win32-amd64');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      optionalDependencies: Record<string, string>;
    };
    const anvils = Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('@foundry-rs/anvil-'));
    expect(anvils.length).toBeGreaterThan(0);
    for (const [, version] of anvils) expect(version).toBe(ANVIL_VERSION);
  });
});
