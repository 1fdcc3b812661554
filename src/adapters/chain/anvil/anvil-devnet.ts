/**
 * The embedded devnet (docs/operations.md, "On this machine: the embedded devnet"): two anvil
 * processes, chain 8453 answering on `port` and 84532 on `port + 1`, with our EIP-3009 USDC and
 * EURC at their canonical addresses on each network, the demo wallets funded, the LaunchFactory,
 * Uniswap v2 and mock Chainlink feeds (EUR/USD, USDC/USD) for the quote providers.
 *
 * Each public port is a journaling proxy (journaled-rpc.ts) on a thread of this process; anvil
 * itself listens on a private port (anvil-process.ts). State persists under `stateDir`: anvil's
 * state, saved by the devnet every 5 s and on stop so that no file is ever torn (state-file.ts,
 * checked at start), plus the journal of every signed transaction, replayed on start
 * (journal-replay.ts) — so even a kill -9 of the service and both chains loses no acknowledged
 * transaction. What each chain holds is in devnet-constants.ts, placed by devnet-provisioning.ts.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPublicClient, createTestClient, http } from 'viem';
import { NETWORKS, PRODUCTION, TESTNET, type Network } from '../../../domain/network.js';
import type { Logger } from '../../../ports/logger.js';
import { freeLocalPort, spawnAnvil, stopChainProcess, stopOrphan, waitReady, type ChainProcess } from './anvil-process.js';
import { DEVNET_UNISWAP_V2 } from './devnet-constants.js';
import { provisionChain } from './devnet-provisioning.js';
import { replayJournal } from './journal-replay.js';
import { RpcPortInUse, startJournaledRpcThread, TransactionJournal, type JournaledRpc } from './journaled-rpc.js';
import { chooseStartState, genesisPath, keepOwnGenesis, readGenesis, saveState, writeGenesis } from './state-file.js';

/** How often each chain's state is saved (anvil's own `--state-interval` was 5 s too). */
const SAVE_EVERY_MS = 5_000;
/**
 * A chain whose head has not moved since its last save is saved again only this long after it:
 * its state moves with blocks, but for anvil's cheat calls (setBalance, setCode) made without a
 * block after them, which this bounds (the journal never held them either).
 */
const RESAVE_UNMOVED_MS = 60_000;

export interface DevnetOptions {
  port: number;
  host?: string;
  /** Directory for anvil's state files; omitted = nothing persists. */
  stateDir?: string;
  /** Called with each anvil line on stderr (diagnostics). */
  onLog?: (line: string) => void;
  /** Where the devnet reports what it does on its own (default: JSON lines on stderr). */
  logger?: Logger;
  /**
   * The caller holds the lock of the data directory `stateDir` is in (src/bootstrap/data-dir-lock.ts),
   * so no other instance runs on it: an anvil named by a pid file there was left by a service
   * that is gone, and is stopped if it really is this state's anvil. Without it, pid files are
   * never acted on — a live instance's chains are never taken for orphans.
   */
  stateDirLocked?: boolean;
  /**
   * Mine an empty block when the chain has been idle this long (0 or omitted: never), as a
   * real chain keeps producing blocks: the reconciler's proof that an authorization can no
   * longer be used is a block past its validBefore. Skipped while automine is off (a test
   * holding the chain still).
   */
  idleBlockMs?: number;
}

export interface DevnetChain {
  network: Network;
  chainId: number;
  rpcUrl: string;
  /** Where the devnet's Uniswap v2 is (the same on both chains). */
  uniswapV2: typeof DEVNET_UNISWAP_V2;
}

/** A public devnet port is taken: most likely another service's devnet. Nothing was started. */
export class DevnetPortInUse extends Error {
  constructor(
    readonly port: number,
    /** DEVNET_PORT (chain 8453) or DEVNET_PORT + 1 (chain 84532). */
    readonly devnetPort: number,
  ) {
    const which = port === devnetPort ? `DEVNET_PORT ${port}` : `port ${port} (DEVNET_PORT + 1, chain 84532)`;
    super(`${which} is in use (another devnet?) — set DEVNET_PORT`);
    this.name = 'DevnetPortInUse';
  }
}

/** Whether a journal holds anything to rebuild a chain from. */
const hasEntries = (path: string): boolean => existsSync(path) && statSync(path).size > 0;

/** Records which genesis block the chain has (genesis-<chainId>.json), for a rebuild to make it again. */
async function recordGenesis(p: ChainProcess): Promise<void> {
  const block = await createPublicClient({ transport: http(p.upstreamUrl) }).getBlock({ blockNumber: 0n });
  writeGenesis(genesisPath(p.statePath!), { timestamp: Number(block.timestamp), hash: block.hash! });
}

/** Moves the chain's clock to now when its head is older than a second (a genesis made again at its own time). */
async function catchUpClock(upstreamUrl: string): Promise<void> {
  const head = await createPublicClient({ transport: http(upstreamUrl) }).getBlock({ blockTag: 'latest' });
  const now = Math.floor(Date.now() / 1000);
  if (Number(head.timestamp) < now - 1) {
    await createTestClient({ mode: 'anvil', transport: http(upstreamUrl) }).request({ method: 'evm_setTime' as never, params: [now] as never });
  }
}

/** The devnet's own reports when no logger is given: JSON lines on stderr, like the service's. */
const stderrLogger: Logger = {
  debug: () => undefined,
  info: (message, fields) => writeLog('info', message, fields),
  warn: (message, fields) => writeLog('warn', message, fields),
  error: (message, fields) => writeLog('error', message, fields),
  enabled: (level) => level !== 'debug',
};
function writeLog(level: string, message: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
}

export class AnvilDevnet {
  private heartbeat: NodeJS.Timeout | null = null;
  private saver: NodeJS.Timeout | null = null;
  /** The save under way (one at a time: they share each chain's temporary file). */
  private saving: Promise<void> = Promise.resolve();
  /** Each chain's head when its state was last saved, and when: an unmoved chain is not saved again. */
  private readonly savedHeads = new Map<ChainProcess, { hash: string | null; at: number }>();

  private constructor(
    readonly chains: Record<Network, DevnetChain>,
    private readonly processes: ChainProcess[],
    /** Set once stop() (or a failed start) ends the chains: an exit after that is expected. */
    private readonly stopping: { now: boolean },
    private readonly logger: Logger,
  ) {}

  /** Saves every running chain's state (a chain that is down keeps its last save). */
  private saveAll(): Promise<void> {
    const run = this.saving.then(async () => {
      const running = this.processes.filter((p) => p.statePath && p.child.exitCode === null && p.child.signalCode === null);
      await Promise.all(running.map((p) => this.save(p)));
    });
    this.saving = run;
    return run;
  }

  private async save(p: ChainProcess): Promise<void> {
    try {
      // A dump is megabytes fetched, decoded and synced: none while the chain has not moved.
      const head = await createPublicClient({ transport: http(p.upstreamUrl) }).getBlock({ blockTag: 'latest' });
      const last = this.savedHeads.get(p);
      if (last && last.hash === head.hash && Date.now() - last.at < RESAVE_UNMOVED_MS) return;
      await saveState(p.upstreamUrl, p.statePath!);
      this.savedHeads.set(p, { hash: head.hash, at: Date.now() });
    } catch (e) {
      // A chain that went down is logged as such; a stop saves on its own (stopChainProcess).
      if (!this.stopping.now && p.child.exitCode === null) this.logger.warn(`devnet ${p.network}: state not saved (${(e as Error).message}); the journal keeps what it lacks`);
    }
  }

  private keepSaving(): void {
    const beat = () => {
      void this.saveAll().then(() => {
        if (this.saver) this.saver = setTimeout(beat, SAVE_EVERY_MS).unref();
      });
    };
    this.saver = setTimeout(beat, SAVE_EVERY_MS).unref();
  }

  private keepProducingBlocks(idleMs: number): void {
    const beat = async () => {
      for (const p of this.processes) {
        try {
          const test = createTestClient({ mode: 'anvil', transport: http(p.upstreamUrl) });
          if (!(await test.getAutomine())) continue;
          const head = await createPublicClient({ transport: http(p.upstreamUrl) }).getBlock({ blockTag: 'latest' });
          if (Date.now() - Number(head.timestamp) * 1000 >= idleMs) await test.mine({ blocks: 1 });
        } catch {
          // stopping, or anvil busy: the next beat tries again
        }
      }
      if (this.heartbeat) this.heartbeat = setTimeout(() => void beat(), idleMs).unref();
    };
    this.heartbeat = setTimeout(() => void beat(), idleMs).unref();
  }

  static async start(options: DevnetOptions): Promise<AnvilDevnet> {
    const host = options.host ?? '127.0.0.1';
    const logger = options.logger ?? stderrLogger;
    const stopping = { now: false };
    if (options.stateDir) mkdirSync(options.stateDir, { recursive: true });
    const entries: [Network, number][] = [
      [PRODUCTION, options.port],
      [TESTNET, options.port + 1],
    ];
    const processes: ChainProcess[] = [];
    /** The chains started at the timestamp of their own genesis (a loaded state's, or a recorded one). */
    const regenerated = new Set<ChainProcess>();
    const chains = {} as Record<Network, DevnetChain>;
    const proxies: { network: Network; port: number; upstreamPort: number; proxy: JournaledRpc; journal: TransactionJournal | null }[] = [];
    const abandon = async () => {
      stopping.now = true;
      for (const p of processes) p.child.kill('SIGKILL');
      for (const p of proxies) await p.proxy.close();
    };
    try {
      // The public ports first, both of them: if either is taken, nothing is started.
      for (const [network, port] of entries) {
        // Read here (replay); appended to and compacted by the proxy's thread.
        const journal = options.stateDir ? new TransactionJournal(join(options.stateDir, `journal-${NETWORKS[network].chainId}.jsonl`)) : null;
        const upstreamPort = await freeLocalPort();
        try {
          proxies.push({ network, port, upstreamPort, journal, proxy: await startJournaledRpcThread({ host, port, upstreamPort, journalPath: journal?.path ?? null }) });
        } catch (e) {
          if (e instanceof RpcPortInUse) throw new DevnetPortInUse(port, options.port);
          throw e;
        }
      }
      for (const { network, port, upstreamPort, proxy, journal } of proxies) {
        const chainId = NETWORKS[network].chainId;
        // Absolute, so the next start can tell this anvil's state from another directory's.
        const statePath = options.stateDir ? resolve(options.stateDir, `anvil-${chainId}.json`) : undefined;
        const pidFile = options.stateDir ? join(options.stateDir, `anvil-${chainId}.pid`) : null;
        if (pidFile && statePath && options.stateDirLocked) await stopOrphan(network, pidFile, statePath, logger);
        // After the orphan is stopped: one an earlier version started writes the file as it goes.
        const loadState = statePath ? chooseStartState(statePath, (line) => logger.warn(`devnet ${network}: ${line}`)) : undefined;
        // The chain's own genesis block, made again by anvil at its timestamp (decision 0066): the
        // loaded state's, or — rebuilt from genesis and its journal — the one recorded beside it.
        const genesis = statePath && !loadState && journal && hasEntries(journal.path) ? readGenesis(genesisPath(statePath)) : null;
        if (genesis) logger.warn(`devnet ${network}: rebuilding from its own genesis block ${genesis.hash} (${genesisPath(statePath!)})`);
        const genesisTimestamp = loadState ? (keepOwnGenesis(loadState) ?? undefined) : genesis?.timestamp;
        const child = spawnAnvil({ network, chainId, upstreamPort, statePath, loadState, genesisTimestamp, pidFile, logger, stopping, onLog: options.onLog });
        processes.push({ network, chainId, child, proxy, journal, statePath: statePath ?? null, pidFile, upstreamUrl: `http://127.0.0.1:${upstreamPort}` });
        if (genesisTimestamp !== undefined) regenerated.add(processes.at(-1)!);
        chains[network] = { network, chainId, rpcUrl: `http://${host}:${port}`, uniswapV2: DEVNET_UNISWAP_V2 };
      }
      const devnet = new AnvilDevnet(chains, processes, stopping, logger);
      await Promise.all(processes.map((p) => waitReady(p)));
      // A genesis made again at its own time runs the chain's clock from then: now, as anvil's would be.
      await Promise.all(processes.filter((p) => regenerated.has(p)).map((p) => catchUpClock(p.upstreamUrl)));
      // What the saved state holds, before provisioning adds to a fresh chain.
      const restored = await Promise.all(processes.map((p) => createPublicClient({ transport: http(p.upstreamUrl) }).getBlock({ blockTag: 'latest' })));
      await Promise.all(processes.map((p) => provisionChain(p.network, chains[p.network].rpcUrl)));
      await Promise.all(processes.map((p, i) => replayJournal(p, restored[i]!, (line) => logger.warn(line))));
      for (const p of processes) if (p.statePath) await recordGenesis(p);
      if (options.stateDir) {
        // At once: a chain rebuilt from its baseline or genesis has a whole state file again.
        await devnet.saveAll();
        devnet.keepSaving();
      }
      if (options.idleBlockMs) devnet.keepProducingBlocks(options.idleBlockMs);
      return devnet;
    } catch (e) {
      await abandon();
      throw e;
    }
  }

  /** Stops both chains; with a state dir, each chain's state is saved first. */
  async stop(): Promise<void> {
    this.stopping.now = true;
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.heartbeat = null;
    if (this.saver) clearTimeout(this.saver);
    this.saver = null;
    await this.saving;
    await Promise.all(this.processes.map((p) => stopChainProcess(p, this.logger)));
  }

  /** The anvil processes' ids (a test checks they die with the service). */
  get pids(): number[] {
    return this.processes.map((p) => p.child.pid ?? -1);
  }

  publicClient(network: Network) {
    return createPublicClient({ transport: http(this.chains[network].rpcUrl) });
  }
}
