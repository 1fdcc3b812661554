/**
 * The embedded devnet of SPEC §13: two anvil processes (chain 8453 on `port`, 84532 on
 * `port + 1`) from the @foundry-rs/anvil npm package, with our EIP-3009 USDC at the canonical
 * USDC address of each network and the demo wallets funded. State persists under `stateDir`
 * (anvil's --state), so a restart keeps balances and history. Processes die with the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createTestClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { NETWORKS, PRODUCTION, TESTNET, type Network } from '../../../domain/network.js';
import { PortInUse, portIsFree } from '../../shared/port-in-use.js';
import { viemChain } from '../../shared/viem-chain.js';

export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** 10,000 USDC. */
export const DEMO_BALANCE = 10_000_000_000n;

interface Artifact {
  abi: Abi;
  deployedBytecode: Hex;
}
const artifacts = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'artifacts.json'), 'utf8')) as {
  contracts: Record<string, Artifact>;
};
export const USDC_ABI = artifacts.contracts.DevUSDC!.abi;

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
}

export interface DevnetChain {
  network: Network;
  chainId: number;
  rpcUrl: string;
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

export class AnvilDevnet {
  private constructor(
    readonly chains: Record<Network, DevnetChain>,
    private readonly processes: ChildProcess[],
  ) {}

  static async start(options: DevnetOptions): Promise<AnvilDevnet> {
    const host = options.host ?? '127.0.0.1';
    if (options.stateDir) mkdirSync(options.stateDir, { recursive: true });
    const entries: [Network, number][] = [
      [PRODUCTION, options.port],
      [TESTNET, options.port + 1],
    ];
    // Another devnet on our ports would answer our RPC calls as if it were ours: refuse instead.
    for (const [, port] of entries) if (!(await portIsFree(port, host))) throw new PortInUse(port, host);
    const processes: ChildProcess[] = [];
    const chains = {} as Record<Network, DevnetChain>;
    const readyDir = mkdtempSync(join(tmpdir(), 'anvil-ready-'));
    try {
      for (const [network, port] of entries) {
        const chainId = NETWORKS[network].chainId;
        const statePath = options.stateDir ? join(options.stateDir, `anvil-${chainId}.json`) : undefined;
        const args = ['--port', String(port), '--host', host, '--chain-id', String(chainId), '--mnemonic', DEVNET_MNEMONIC, '--accounts', '10', '--silent'];
        args.push('--config-out', join(readyDir, `${chainId}.json`));
        if (statePath) args.push('--state', statePath, '--state-interval', '5');
        const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
        live.add(child);
        child.once('exit', () => live.delete(child));
        child.stderr?.on('data', (d: Buffer) => options.onLog?.(d.toString()));
        processes.push(child);
        chains[network] = { network, chainId, rpcUrl: `http://${host}:${port}` };
      }
      const devnet = new AnvilDevnet(chains, processes);
      await Promise.all(
        entries.map(([n, port], i) => devnet.waitReady(n, processes[i]!, join(readyDir, `${NETWORKS[n].chainId}.json`), port, host)),
      );
      await Promise.all(entries.map(([n]) => devnet.provision(n)));
      return devnet;
    } catch (e) {
      for (const p of processes) p.kill('SIGKILL');
      throw e;
    } finally {
      rmSync(readyDir, { recursive: true, force: true });
    }
  }

  /** Stops both chains; with a state dir, anvil writes its state on the way out. */
  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            const force = setTimeout(() => p.kill('SIGKILL'), 5_000);
            p.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            p.kill('SIGTERM');
          }),
      ),
    );
  }

  get pids(): number[] {
    return this.processes.map((p) => p.pid ?? -1);
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
    return (await this.publicClient(network).readContract({
      address: NETWORKS[network].usdc,
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [address],
    })) as bigint;
  }

  /** Mints devnet USDC (account #0 is the minter). */
  async mint(network: Network, to: Hex, amount: bigint): Promise<void> {
    const wallet = createWalletClient({ account: devnetAccount(0), transport: http(this.chains[network].rpcUrl) });
    const chain = viemChain(network, this.chains[network].rpcUrl);
    const hash = await wallet.writeContract({ chain, address: NETWORKS[network].usdc, abi: USDC_ABI, functionName: 'mint', args: [to, amount] });
    await this.publicClient(network).waitForTransactionReceipt({ hash });
  }

  /**
   * Waits until our own child answers. anvil writes `--config-out` only once it has bound its
   * port, so until that file exists whoever answers on the port is someone else (a port taken
   * between our check and the spawn): our child then exits, and so do we, with PortInUse.
   */
  private async waitReady(network: Network, child: ChildProcess, readyFile: string, port: number, host: string): Promise<void> {
    const client = this.publicClient(network);
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        if (!(await portIsFree(port, host))) throw new PortInUse(port, host);
        throw new Error(`anvil for ${network} exited with code ${child.exitCode ?? child.signalCode}`);
      }
      if (existsSync(readyFile)) {
        try {
          if ((await client.getChainId()) === this.chains[network].chainId) return;
        } catch {
          // bound but not answering yet
        }
      }
      if (Date.now() > deadline) throw new Error(`anvil for ${network} did not start on ${this.chains[network].rpcUrl}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Installs the contracts and funds the demo wallets, once per state (a restart keeps them). */
  private async provision(network: Network): Promise<void> {
    const url = this.chains[network].rpcUrl;
    const test = createTestClient({ mode: 'anvil', transport: http(url) });
    const usdc = NETWORKS[network].usdc;
    const code = await this.publicClient(network).getCode({ address: usdc });
    if (code && code !== '0x') return;
    await test.setCode({ address: usdc, bytecode: artifacts.contracts.DevUSDC!.deployedBytecode });
    await test.setCode({ address: MULTICALL3_ADDRESS, bytecode: artifacts.contracts.Multicall!.deployedBytecode });
    for (const index of FUNDED[network]) await this.mint(network, devnetAccount(index).address, DEMO_BALANCE);
  }
}

/** Whether a state file exists (a devnet that will resume rather than start fresh). */
export function hasDevnetState(stateDir: string): boolean {
  return existsSync(join(stateDir, 'anvil-8453.json'));
}
