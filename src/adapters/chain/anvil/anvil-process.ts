/**
 * One chain of the devnet as an operating-system process: the anvil binary from the
 * @foundry-rs/anvil npm package, started on a private port only the journaling proxy talks to,
 * waited for, and stopped — its state saved by the devnet first (state-file.ts: anvil itself never
 * writes the file, so a stop cannot tear it). Processes die with the
 * service; one left behind by a killed service is stopped on the next start that holds the data
 * directory's lock (only then is its service known to be gone), and only if it really is the
 * anvil of this state (docs/decisions/0022-one-instance-per-data-dir.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { createPublicClient, http } from 'viem';
import type { Network } from '../../../domain/network.js';
import type { Logger } from '../../../ports/logger.js';
import { DEVNET_MNEMONIC } from './devnet-constants.js';
import type { JournaledRpc, TransactionJournal } from './journaled-rpc.js';
import { saveState } from './state-file.js';

/**
 * Set on each anvil the devnet starts: the absolute state file it serves, so the next start can
 * tell (from /proc/<pid>/environ) an orphan of this state from any other process.
 */
const STATE_ENV = 'LAUNCHPAD_DEVNET_STATE';

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

/** One chain's anvil, and the journaling proxy that is its public port. */
export interface ChainProcess {
  network: Network;
  chainId: number;
  child: ChildProcess;
  /** The journaling proxy on its thread; it owns the journal's appends. */
  proxy: JournaledRpc;
  journal: TransactionJournal | null;
  /** Where the devnet saves this chain's state (null: nothing persists). */
  statePath: string | null;
  pidFile: string | null;
  /** anvil itself, reached only through the proxy by everyone but the devnet. */
  upstreamUrl: string;
}

/** A port nothing listens on now, for an anvil only our proxy talks to. */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts anvil for `network` on `upstreamPort` (127.0.0.1), loading `loadState` when given (anvil
 * only reads it; the devnet saves `statePath`), its pid written to `pidFile`. An exit while
 * `stopping.now` is false is logged as the chain going down under the service.
 */
export function spawnAnvil(options: {
  network: Network;
  chainId: number;
  upstreamPort: number;
  statePath: string | undefined;
  /** The state file to start from (the state file, its baseline, or none: genesis). */
  loadState: string | undefined;
  /** Block 0's timestamp, to make the chain's own genesis again (docs/decisions/0066); none: a new chain, from now. */
  genesisTimestamp?: number | undefined;
  pidFile: string | null;
  logger: Logger;
  stopping: { now: boolean };
  onLog: ((line: string) => void) | undefined;
}): ChildProcess {
  const { network, chainId, statePath, pidFile, logger, stopping } = options;
  const args = ['--port', String(options.upstreamPort), '--host', '127.0.0.1', '--chain-id', String(chainId), '--mnemonic', DEVNET_MNEMONIC, '--accounts', '10', '--silent'];
  if (options.loadState) args.push('--load-state', options.loadState);
  // The chain's own genesis block made again (docs/decisions/0066), not one of this start's time.
  if (options.genesisTimestamp !== undefined) args.push('--timestamp', String(options.genesisTimestamp));
  // No pipe that is not read: a pipe whose reader is gone is an error on anvil's next write.
  // The environment is passed on unread, with the devnet's mark added.
  // eslint-disable-next-line no-restricted-syntax
  const env = statePath ? { ...process.env, [STATE_ENV]: statePath } : undefined;
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', options.onLog ? 'pipe' : 'ignore'], env });
  live.add(child);
  child.once('exit', (code, signal) => {
    live.delete(child);
    // The chain is gone under the service: payments and payouts fail from here on.
    if (!stopping.now) logger.error(`devnet ${network}: anvil exited unexpectedly — chain ${chainId} is down`, { pid: child.pid, code, signal });
  });
  child.stderr?.on('data', (d: Buffer) => options.onLog?.(d.toString()));
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
  return child;
}

/** Until anvil answers with its chain id on its private port (15 s at most). */
export async function waitReady(p: ChainProcess): Promise<void> {
  const client = createPublicClient({ transport: http(p.upstreamUrl) });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`anvil for ${p.network} exited with code ${p.child.exitCode}`);
    try {
      // Our own child on a port only we know: whoever answers is the anvil we started.
      if ((await client.getChainId()) === p.chainId) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`anvil for ${p.network} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Closes the proxy (no transaction comes in after it), saves the state, then stops anvil (SIGTERM;
 * SIGKILL after 5 s: anvil writes nothing on its way out). A state that cannot be saved (anvil
 * already gone) leaves the last save, which the journal tops up on the next start.
 */
export async function stopChainProcess(p: ChainProcess, logger: Logger): Promise<void> {
  const { child, proxy, pidFile } = p;
  await proxy.close();
  if (p.statePath && child.exitCode === null && child.signalCode === null) {
    await saveState(p.upstreamUrl, p.statePath).catch((e: unknown) =>
      logger.warn(`devnet ${p.network}: state not saved on stop (${(e as Error).message}); the next start replays the journal over the last save`),
    );
  }
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
 * The state file the process `pid` runs anvil on (the devnet's mark in its environment, or — an
 * anvil an earlier version started — its `--state`, resolved against its working directory), from
 * /proc on Linux; null when it is not an anvil, has no state, or cannot be checked (not Linux,
 * gone, not ours to read).
 */
function anvilStateOf(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!/^anvil(\.exe)?$/.test(basename(argv[0] ?? ''))) return null;
    const marked = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((v) => v.startsWith(`${STATE_ENV}=`));
    if (marked) return marked.slice(STATE_ENV.length + 1);
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
 * this state: stop it before starting ours (what it holds beyond the last save is in the journal;
 * SIGTERM first, as one an earlier version started writes its state on the way out). Called only
 * while the data directory's lock is held, i.e. once the service that wrote the pid file is
 * gone; and a pid that is not the anvil of `statePath` (reused by another process since, or
 * unverifiable) is never signalled.
 */
export async function stopOrphan(network: Network, pidFile: string, statePath: string, logger: Logger): Promise<void> {
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
