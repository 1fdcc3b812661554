/**
 * The embedded devnet of SPEC §13: two anvil processes from the @foundry-rs/anvil npm package,
 * chain 8453 answering on `port` and 84532 on `port + 1`, with our EIP-3009 USDC and EURC at
 * their canonical addresses on each network, the demo wallets funded, the LaunchFactory, and mock
 * Chainlink feeds (EUR/USD, USDC/USD) for the quote providers.
 *
 * Each public port is a journaling proxy (journaled-rpc.ts) on a thread of this process; anvil itself
 * listens on a private port. State persists under `stateDir`: anvil's --state every 5 s and on
 * exit, plus the journal of every signed transaction, replayed on start — so even a kill -9 of
 * the service and both chains loses no acknowledged transaction. Processes die with the service;
 * one left behind by a killed service is stopped on the next start that holds the data
 * directory's lock (only then is its service known to be gone), and only if it really is the
 * anvil of this state.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getContractAddress,
  http,
  keccak256,
  parseEther,
  parseSignature,
  toBytes,
  type Hex,
  type LocalAccount,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { assetAddress, NETWORKS, PRODUCTION, TESTNET, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { PricedAsset } from '../../../domain/usd-price.js';
import type { Logger } from '../../../ports/logger.js';
import { UNISWAP_V2_FACTORY, UNISWAP_V2_ROUTER, WETH9 } from '../../kit/evm/contracts/uniswap-v2.js';
import { viemChain } from '../../kit/evm/viem-chain.js';
import { CONTRACTS } from '../../kit/evm/contracts/artifacts.js';
import { RpcPortInUse, startJournaledRpcThread, TransactionJournal, type JournaledRpc } from './journaled-rpc.js';

export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Where the devnet places the LaunchFactory on both chains: the ASCII bytes of "LaunchFactory". */
export const LAUNCH_FACTORY_ADDRESS = '0x4C61756E6368466163746f727900000000000000';
/**
 * Uniswap v2 on the devnet (SPEC §14) is deployed by its constructors — the router keeps the
 * factory and WETH in immutables, so placing code with setCode would not do — from a deployer
 * whose key is fixed here, with nonces 0 (WETH9), 1 (factory), 2 (router): the addresses follow
 * from the key and are the same on both chains and on every start.
 */
export const UNISWAP_DEPLOYER = privateKeyToAccount(keccak256(toBytes('x402-launchpad devnet: Uniswap v2 deployer')));
const deployedBy = (nonce: number): Hex => getContractAddress({ from: UNISWAP_DEPLOYER.address, nonce: BigInt(nonce) });
export const DEVNET_UNISWAP_V2 = { weth: deployedBy(0), factory: deployedBy(1), router: deployedBy(2) } as const;

/** 10,000 USDC (and 10,000 EURC). */
export const DEMO_BALANCE = 10_000_000_000n;
/**
 * USDC the treasury (account #0, custody) starts with on each devnet chain: its working capital.
 * Sell proceeds are paid in USDC whatever asset paid the fee, so a treasury paid only in EURC must
 * still be able to pay sellers (decision 0021).
 */
export const TREASURY_FLOAT = 10_000_000_000n;

export const USDC_ABI = CONTRACTS.DevUSDC.abi;
export const MOCK_AGGREGATOR_ABI = CONTRACTS.MockAggregator.abi;

/** Mock Chainlink feeds (8 decimals) at the same fixed addresses on both chains: EUR/USD prices EURC. */
export const DEVNET_PRICE_FEEDS = {
  EURC: '0x0000000000000000000000000000000000feed01',
  USDC: '0x0000000000000000000000000000000000feed02',
} as const satisfies Partial<Record<PricedAsset, Hex>>;
export type DevnetFeedAsset = keyof typeof DEVNET_PRICE_FEEDS;
/** Their first answers: EUR/USD 1.08, USDC/USD 1.00. */
export const DEVNET_FEED_ANSWERS: Record<DevnetFeedAsset, bigint> = { EURC: 108_000_000n, USDC: 100_000_000n };

/** anvil's account `index` of the test mnemonic. */
export const devnetAccount = (index: number) => mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });

/** Who holds USDC where (SPEC §13): #1–#4 on 8453 only (production wallets), #5–#9 on 84532 only. */
export const FUNDED: Record<Network, number[]> = { [PRODUCTION]: [1, 2, 3, 4], [TESTNET]: [5, 6, 7, 8, 9] };

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
   * The caller holds the lock of the data directory `stateDir` is in (shared/data-dir-lock.ts),
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

/** The version of anvil the devnet is tested with (package.json pins the same). */
export const ANVIL_VERSION = '1.7.1';

/**
 * The npm package that ships anvil for a platform, named as @foundry-rs/anvil's own
 * optionalDependencies name them (darwin-arm64, darwin-amd64, linux-arm64, linux-amd64, win32-amd64).
 */
export function anvilPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@foundry-rs/anvil-${platform}-${arch === 'x64' ? 'amd64' : arch}`;
}

/** This platform's anvil package is not installed; the message says which one to install. */
export class AnvilNotInstalled extends Error {
  constructor(readonly packageName: string) {
    super(
      `The devnet needs anvil from the npm package ${packageName} (npm install --no-save ${packageName}@${ANVIL_VERSION}), or set RPC_URL_8453 and RPC_URL_84532.`,
    );
    this.name = 'AnvilNotInstalled';
  }
}

function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = anvilPackage();
  let dir: string;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new AnvilNotInstalled(pkg);
  }
  return join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

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

/** A port nothing listens on now, for an anvil only our proxy talks to. */
function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's, but alive
  }
};

/**
 * The state file the process `pid` runs anvil on (its `--state`, resolved against its working
 * directory), from /proc on Linux; null when it is not an anvil, has no state, or cannot be
 * checked (not Linux, gone, not ours to read).
 */
function anvilStateOf(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!/^anvil(\.exe)?$/.test(basename(argv[0] ?? ''))) return null;
    const at = argv.indexOf('--state');
    const state = at > 0 ? argv[at + 1] : undefined;
    if (!state) return null;
    return state.startsWith('/') ? state : resolve(readlinkSync(`/proc/${pid}/cwd`), state);
  } catch {
    return null;
  }
}

/**
 * An anvil left running by a service that was killed (SIGKILL runs no exit handler) still holds
 * this state: stop it — politely, so it writes its state — before starting ours. Called only
 * while the data directory's lock is held, i.e. once the service that wrote the pid file is
 * gone; and a pid that is not the anvil of `statePath` (reused by another process since, or
 * unverifiable) is never signalled.
 */
async function stopOrphan(network: Network, pidFile: string, statePath: string, logger: Logger): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  if (anvilStateOf(pid) !== resolve(statePath)) {
    logger.warn(`devnet ${network}: ${pidFile} names pid ${pid}, which is not this state's anvil (or cannot be checked): left alone`, { pid });
    return;
  }
  logger.warn(`devnet ${network}: stopping anvil pid ${pid}, left running on ${statePath} by a service that is gone`, { pid });
  try {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  } catch (e) {
    // Another user's process: ours cannot stop it.
    logger.error(`devnet ${network}: anvil pid ${pid} could not be stopped: ${(e as Error).message}`, { pid });
  }
}

/** The devnet's own reports when no logger is given: JSON lines on stderr, like the service's. */
const stderrLogger: Logger = {
  debug: () => undefined,
  info: (message, fields) => writeLog('info', message, fields),
  warn: (message, fields) => writeLog('warn', message, fields),
  error: (message, fields) => writeLog('error', message, fields),
};
function writeLog(level: string, message: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
}

interface ChainProcess {
  network: Network;
  child: ChildProcess;
  /** The journaling proxy on its thread; it owns the journal's appends. */
  proxy: JournaledRpc;
  journal: TransactionJournal | null;
  pidFile: string | null;
  /** anvil itself, reached only through the proxy by everyone but the devnet. */
  upstreamUrl: string;
}

export class AnvilDevnet {
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(
    readonly chains: Record<Network, DevnetChain>,
    private readonly processes: ChainProcess[],
    private readonly logger: Logger,
    /** Set once stop() (or a failed start) ends the chains: an exit after that is expected. */
    private readonly stopping: { now: boolean },
  ) {}

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
        const args = ['--port', String(upstreamPort), '--host', '127.0.0.1', '--chain-id', String(chainId), '--mnemonic', DEVNET_MNEMONIC, '--accounts', '10', '--silent'];
        if (statePath) args.push('--state', statePath, '--state-interval', '5');
        const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
        live.add(child);
        child.once('exit', (code, signal) => {
          live.delete(child);
          // The chain is gone under the service: payments and payouts fail from here on.
          if (!stopping.now) logger.error(`devnet ${network}: anvil exited unexpectedly — chain ${chainId} is down`, { pid: child.pid, code, signal });
        });
        child.stderr?.on('data', (d: Buffer) => options.onLog?.(d.toString()));
        if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
        processes.push({ network, child, proxy, journal, pidFile, upstreamUrl: `http://127.0.0.1:${upstreamPort}` });
        chains[network] = { network, chainId, rpcUrl: `http://${host}:${port}`, uniswapV2: DEVNET_UNISWAP_V2 };
      }
      const devnet = new AnvilDevnet(chains, processes, logger, stopping);
      await Promise.all(processes.map((p) => devnet.waitReady(p)));
      // What the saved state holds, before provisioning adds to a fresh chain.
      const restored = await Promise.all(processes.map((p) => createPublicClient({ transport: http(p.upstreamUrl) }).getBlock({ blockTag: 'latest' })));
      await Promise.all(processes.map((p) => devnet.provision(p.network)));
      await Promise.all(processes.map((p, i) => devnet.replayJournal(p, restored[i]!)));
      if (options.idleBlockMs) devnet.keepProducingBlocks(options.idleBlockMs);
      return devnet;
    } catch (e) {
      await abandon();
      throw e;
    }
  }

  /** Stops both chains; with a state dir, anvil writes its state on the way out. */
  async stop(): Promise<void> {
    this.stopping.now = true;
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.heartbeat = null;
    await Promise.all(
      this.processes.map(async ({ child, proxy, pidFile }) => {
        await proxy.close();
        await new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGTERM');
        });
        if (pidFile) rmSync(pidFile, { force: true });
      }),
    );
  }

  /**
   * Sends again every journaled transaction the restored chain does not know, in order, each in
   * a block stamped with the time it was first received; then brings the chain's clock back to
   * now. Transactions the state already holds, or that fail (a nonce since taken), are skipped.
   */
  private async replayJournal(p: ChainProcess, restored: { number: bigint; timestamp: bigint }): Promise<number> {
    if (!p.journal) return 0;
    const client = createPublicClient({ transport: http(p.upstreamUrl) });
    const test = createTestClient({ mode: 'anvil', transport: http(p.upstreamUrl) });
    // Which entries the saved state may lack: from well before its head (a transaction waits in
    // the journal's queue and the node before it is mined); each is checked by hash anyway. No
    // saved state (block 0): all of them.
    const since = restored.number === 0n ? 0 : (Number(restored.timestamp) - 600) * 1000;
    let last = restored.number === 0n ? 0n : restored.timestamp;
    let rewound = false;
    let replayed = 0;
    for (const entry of p.journal.read().filter((e) => e.t >= since)) {
      const hash = keccak256(entry.raw);
      if (await client.getTransaction({ hash }).catch(() => null)) continue;
      const at = BigInt(Math.floor(entry.t / 1000));
      if (at > last) last = at;
      try {
        // A restarted anvil refuses blocks older than its start; evm_setTime lets the clock go
        // back to when the transaction was first received, inside its authorization window.
        if (!rewound) {
          await test.request({ method: 'evm_setTime' as never, params: [Number(last)] as never });
          rewound = true;
        }
        await test.setNextBlockTimestamp({ timestamp: last });
        await client.sendRawTransaction({ serializedTransaction: entry.raw });
        replayed += 1;
      } catch (e) {
        const detail = (e as { details?: string }).details ?? (e as Error).message.split('\n')[0];
        this.log(`devnet ${p.network}: journaled transaction ${hash} not replayed: ${detail}`);
      }
    }
    if (rewound) await test.request({ method: 'evm_setTime' as never, params: [Math.floor(Date.now() / 1000)] as never });
    if (replayed > 0) this.log(`devnet ${p.network}: replayed ${replayed} journaled transaction(s) the saved state had lost`);
    if (since > 0) await p.proxy.compact(since - 3_600_000);
    return replayed;
  }

  private log(line: string): void {
    this.logger.warn(line);
  }

  get pids(): number[] {
    return this.processes.map((p) => p.child.pid ?? -1);
  }

  publicClient(network: Network) {
    return createPublicClient({ transport: http(this.chains[network].rpcUrl) });
  }

  async snapshot(): Promise<Record<Network, Hex>> {
    const ids = await Promise.all(
      ([PRODUCTION, TESTNET] as const).map((n) => createTestClient({ mode: 'anvil', transport: http(this.chains[n].rpcUrl) }).snapshot()),
    );
    return { [PRODUCTION]: ids[0]!, [TESTNET]: ids[1]! };
  }

  async revert(ids: Record<Network, Hex>): Promise<void> {
    await Promise.all(
      ([PRODUCTION, TESTNET] as const).map((n) =>
        createTestClient({ mode: 'anvil', transport: http(this.chains[n].rpcUrl) }).revert({ id: ids[n] }),
      ),
    );
  }

  async usdcBalance(network: Network, address: Hex): Promise<bigint> {
    return this.assetBalance(network, 'USDC', address);
  }

  /** The balance of a payment asset (USDC or EURC), in its smallest units. */
  async assetBalance(network: Network, asset: PaymentAsset, address: Hex): Promise<bigint> {
    return (await this.publicClient(network).readContract({
      address: assetAddress(network, asset),
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [address],
    })) as bigint;
  }

  /** Mints devnet USDC or EURC (account #0 is the minter of both). */
  async mint(network: Network, to: Hex, amount: bigint, asset: PaymentAsset = 'USDC'): Promise<void> {
    const wallet = createWalletClient({ account: devnetAccount(0), transport: http(this.chains[network].rpcUrl) });
    const chain = viemChain(network, this.chains[network].rpcUrl);
    const hash = await wallet.writeContract({ chain, address: assetAddress(network, asset), abi: USDC_ABI, functionName: 'mint', args: [to, amount] });
    await this.publicClient(network).waitForTransactionReceipt({ hash });
  }

  /** The wallet cancels an EIP-3009 authorization of its own (signed, submitted by the wallet). */
  async cancelAuthorization(network: Network, wallet: LocalAccount, nonce: Hex, asset: PaymentAsset = 'USDC'): Promise<void> {
    const url = this.chains[network].rpcUrl;
    const info = NETWORKS[network].assets[asset];
    const signature = await wallet.signTypedData({
      domain: { ...info.eip712, chainId: NETWORKS[network].chainId, verifyingContract: info.address },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: wallet.address, nonce },
    });
    const { r, s, v } = parseSignature(signature);
    const client = createWalletClient({ account: wallet, transport: http(url) });
    const hash = await client.writeContract({
      chain: viemChain(network, url),
      address: info.address,
      abi: USDC_ABI,
      functionName: 'cancelAuthorization',
      args: [wallet.address, nonce, Number(v ?? 27n), r, s],
    });
    await this.publicClient(network).waitForTransactionReceipt({ hash });
  }

  /** A new round of a devnet feed: live (updatedAt follows the block time) or pinned to `updatedAt`. */
  async setFeedRound(network: Network, asset: DevnetFeedAsset, answer: bigint, updatedAt?: bigint): Promise<void> {
    const wallet = createWalletClient({ account: devnetAccount(0), transport: http(this.chains[network].rpcUrl) });
    const chain = viemChain(network, this.chains[network].rpcUrl);
    const address = DEVNET_PRICE_FEEDS[asset];
    const hash =
      updatedAt === undefined
        ? await wallet.writeContract({ chain, address, abi: MOCK_AGGREGATOR_ABI, functionName: 'setAnswer', args: [answer] })
        : await wallet.writeContract({ chain, address, abi: MOCK_AGGREGATOR_ABI, functionName: 'setRound', args: [answer, updatedAt] });
    await this.publicClient(network).waitForTransactionReceipt({ hash });
  }

  private async waitReady(p: ChainProcess): Promise<void> {
    const client = createPublicClient({ transport: http(p.upstreamUrl) });
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (p.child.exitCode !== null) throw new Error(`anvil for ${p.network} exited with code ${p.child.exitCode}`);
      try {
        // Our own child on a port only we know: whoever answers is the anvil we started.
        if ((await client.getChainId()) === this.chains[p.network].chainId) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`anvil for ${p.network} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Installs the contracts and funds the demo wallets, once per state (a restart keeps them). */
  private async provision(network: Network): Promise<void> {
    const url = this.chains[network].rpcUrl;
    const test = createTestClient({ mode: 'anvil', transport: http(url) });
    await this.provisionPriceFeeds(network);
    await this.provisionUniswap(network);
    await this.provisionEurc(network);
    const usdc = NETWORKS[network].usdc;
    // Checked on its own and replaced when it differs, so a devnet state from before the factory
    // existed (or from before its pool seeding) gets this version: it keeps no state.
    const factory = await this.publicClient(network).getCode({ address: LAUNCH_FACTORY_ADDRESS });
    const launchFactory = CONTRACTS.LaunchFactory.deployedBytecode;
    if (factory?.toLowerCase() !== launchFactory.toLowerCase()) await test.setCode({ address: LAUNCH_FACTORY_ADDRESS, bytecode: launchFactory });
    const code = await this.publicClient(network).getCode({ address: usdc });
    if (code && code !== '0x') return;
    await test.setCode({ address: usdc, bytecode: CONTRACTS.DevUSDC.deployedBytecode });
    await test.setCode({ address: MULTICALL3_ADDRESS, bytecode: CONTRACTS.Multicall.deployedBytecode });
    for (const index of FUNDED[network]) await this.mint(network, devnetAccount(index).address, DEMO_BALANCE);
    await this.mint(network, devnetAccount(0).address, TREASURY_FLOAT);
  }

  /**
   * WETH9, UniswapV2Factory and UniswapV2Router02 from the npm artifacts, each deployed once per
   * state by the fixed deployer at its fixed nonce (checked on their own: older states lack them).
   * The deployments go through the journaling proxy like any transaction, so a replay finds them.
   */
  private async provisionUniswap(network: Network): Promise<void> {
    const url = this.chains[network].rpcUrl;
    const client = this.publicClient(network);
    const chain = viemChain(network, url);
    const wallet = createWalletClient({ account: UNISWAP_DEPLOYER, chain, transport: http(url) });
    const steps = [
      { nonce: 0, address: DEVNET_UNISWAP_V2.weth, deploy: () => wallet.deployContract({ abi: WETH9.abi, bytecode: WETH9.bytecode, nonce: 0 }) },
      {
        nonce: 1,
        address: DEVNET_UNISWAP_V2.factory,
        deploy: () => wallet.deployContract({ abi: UNISWAP_V2_FACTORY.abi, bytecode: UNISWAP_V2_FACTORY.bytecode, args: [UNISWAP_DEPLOYER.address], nonce: 1 }),
      },
      {
        nonce: 2,
        address: DEVNET_UNISWAP_V2.router,
        deploy: () =>
          wallet.deployContract({ abi: UNISWAP_V2_ROUTER.abi, bytecode: UNISWAP_V2_ROUTER.bytecode, args: [DEVNET_UNISWAP_V2.factory, DEVNET_UNISWAP_V2.weth], nonce: 2 }),
      },
    ];
    for (const step of steps) {
      const code = await client.getCode({ address: step.address });
      if (code && code !== '0x') continue;
      const used = await client.getTransactionCount({ address: UNISWAP_DEPLOYER.address });
      if (used !== step.nonce) {
        throw new Error(`devnet ${network}: the Uniswap v2 deployer has used nonce ${step.nonce} for something else; remove the devnet state to start afresh`);
      }
      const test = createTestClient({ mode: 'anvil', transport: http(url) });
      await test.setBalance({ address: UNISWAP_DEPLOYER.address, value: parseEther('10') });
      const hash = await step.deploy();
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success' || receipt.contractAddress?.toLowerCase() !== step.address.toLowerCase()) {
        throw new Error(`devnet ${network}: deploying Uniswap v2 at ${step.address} failed`);
      }
    }
  }

  /**
   * EURC (SPEC §15) at its canonical address with its real EIP-712 name and version, the demo
   * wallets funded as with USDC; once per state, checked on its own (older states lack it).
   */
  private async provisionEurc(network: Network): Promise<void> {
    const eurc = assetAddress(network, 'EURC');
    const code = await this.publicClient(network).getCode({ address: eurc });
    if (code && code !== '0x') return;
    await createTestClient({ mode: 'anvil', transport: http(this.chains[network].rpcUrl) }).setCode({ address: eurc, bytecode: CONTRACTS.DevEURC.deployedBytecode });
    for (const index of FUNDED[network]) await this.mint(network, devnetAccount(index).address, DEMO_BALANCE, 'EURC');
  }

  /** The mock feeds, installed once per state (checked on their own: older states lack them). */
  private async provisionPriceFeeds(network: Network): Promise<void> {
    const test = createTestClient({ mode: 'anvil', transport: http(this.chains[network].rpcUrl) });
    for (const asset of Object.keys(DEVNET_PRICE_FEEDS) as DevnetFeedAsset[]) {
      const code = await this.publicClient(network).getCode({ address: DEVNET_PRICE_FEEDS[asset] });
      if (code && code !== '0x') continue;
      await test.setCode({ address: DEVNET_PRICE_FEEDS[asset], bytecode: CONTRACTS.MockAggregator.deployedBytecode });
      await this.setFeedRound(network, asset, DEVNET_FEED_ANSWERS[asset]);
    }
  }
}

/** Whether a state file exists (a devnet that will resume rather than start fresh). */
export function hasDevnetState(stateDir: string): boolean {
  return existsSync(join(stateDir, 'anvil-8453.json'));
}
