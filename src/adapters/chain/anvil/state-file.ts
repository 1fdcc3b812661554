/**
 * anvil's saved state, written by the devnet itself (docs/decisions/0041-devnet-state-never-torn.md).
 *
 * anvil's own `--state` writes the file in place, truncating it first: a stop or crash while it
 * writes leaves a file anvil refuses to start from. So anvil only ever reads it (`--load-state`);
 * the devnet asks it for its state (`anvil_dumpState`) and writes a temporary file, synced, then
 * renamed over the old one — the file is always a whole state, an old one at worst, which the
 * journal tops up. At start a file that still cannot be read (torn by an earlier version, damaged
 * on disk) is moved aside, kept, and the chain is rebuilt from the baseline — the last state a
 * start loaded, which the journal covers every transaction since — or from genesis.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

/** Why anvil could not start from the state file at `path` (as its `--load-state` parses it), or null. */
export function stateFileProblem(path: string): string | null {
  let state: unknown;
  try {
    state = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return (e as Error).message;
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return 'not a JSON object';
  const s = state as Record<string, unknown>;
  for (const field of ['block', 'best_block_number']) if (!(field in s)) return `no "${field}"`;
  if (typeof s.accounts !== 'object' || s.accounts === null || Array.isArray(s.accounts)) return 'no "accounts" object';
  if (!Array.isArray(s.blocks)) return 'no "blocks" list';
  return null;
}

/**
 * The chain's genesis block (docs/decisions/0066), kept beside its state: block 0's timestamp and
 * hash. anvil makes block 0 from its start time, so a chain rebuilt from genesis and its journal
 * (its state lost) is started at the recorded timestamp — block 0 is then the same block, and the
 * chain the same chain its books were kept on. A devnet whose state and journal are gone starts a
 * new chain.
 */
export interface Genesis {
  timestamp: number;
  hash: string;
}

/** Where a chain's genesis is kept, beside its state file (`anvil-<chainId>.json` → `genesis-<chainId>.json`). */
export const genesisPath = (statePath: string): string => join(dirname(statePath), basename(statePath).replace(/^anvil-/, 'genesis-'));

/** The recorded genesis, or null when none is (or it cannot be read). */
export function readGenesis(path: string): Genesis | null {
  try {
    const g = JSON.parse(readFileSync(path, 'utf8')) as Partial<Genesis>;
    return typeof g.timestamp === 'number' && Number.isSafeInteger(g.timestamp) && typeof g.hash === 'string' ? { timestamp: g.timestamp, hash: g.hash } : null;
  } catch {
    return null;
  }
}

/** Records `genesis` (synced, renamed over the last one) unless it is recorded already. */
export function writeGenesis(path: string, genesis: Genesis): void {
  const recorded = readGenesis(path);
  if (recorded && recorded.timestamp === genesis.timestamp && recorded.hash === genesis.hash) return;
  writeAtomically(path, (tmp) => writeFileSync(tmp, JSON.stringify(genesis) + '\n'));
}

/**
 * The chain's own genesis in the state file at `path`: its oldest block 0. anvil makes a genesis
 * block of its own at every start and keeps it beside the one it loads — a state saved after a
 * restart holds both, and anvil answers for block 0 the last it loads, in whatever order the save
 * listed them. So a state holding more than one block 0 (saved by an earlier version, which let
 * anvil make its genesis from the time of each start) is rewritten with only the chain's own;
 * anvil is then started at its timestamp, and makes that very block again. Returns its timestamp,
 * or null when the state holds no block 0.
 */
export function keepOwnGenesis(path: string): number | null {
  const state = JSON.parse(readFileSync(path, 'utf8')) as { blocks: { header?: { number?: string; timestamp?: string } }[] };
  const geneses = state.blocks.filter((b) => b.header?.number === '0x0' && typeof b.header.timestamp === 'string');
  if (geneses.length === 0) return null;
  const own = geneses.reduce((a, b) => (BigInt(b.header!.timestamp!) < BigInt(a.header!.timestamp!) ? b : a));
  if (geneses.length > 1) {
    state.blocks = state.blocks.filter((b) => !geneses.includes(b) || b === own);
    writeAtomically(path, (tmp) => writeFileSync(tmp, JSON.stringify(state)));
  }
  return Number(BigInt(own.header!.timestamp!));
}

/** The baseline kept beside a state file. */
export const baselinePath = (statePath: string): string => statePath.replace(/\.json$/, '') + '.baseline.json';

/**
 * The file anvil is to start from (undefined: genesis). A readable state is loaded and becomes the
 * baseline (before the journal is compacted against it); an unreadable one — or baseline — is
 * renamed to `<name>.corrupt-<time>` and `log` says what the chain is rebuilt from.
 */
export function chooseStartState(statePath: string, log: (line: string) => void, now: Date = new Date()): string | undefined {
  const baseline = baselinePath(statePath);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const setAside = (path: string, problem: string) => {
    const kept = `${path}.corrupt-${stamp}`;
    renameSync(path, kept);
    return `${path} cannot be loaded (${problem}): moved aside to ${kept}`;
  };
  let lost: string | null = null;
  if (existsSync(statePath)) {
    const problem = stateFileProblem(statePath);
    if (problem === null) {
      writeAtomically(baseline, (tmp) => copyFileSync(statePath, tmp));
      return statePath;
    }
    lost = setAside(statePath, problem);
  }
  if (!existsSync(baseline)) {
    if (lost) log(`${lost}; rebuilding from genesis and the transaction journal`);
    return undefined;
  }
  const problem = stateFileProblem(baseline);
  if (problem === null) {
    log(`${lost ?? `${statePath} is missing`}; rebuilding from the baseline ${baseline} and the transaction journal`);
    return baseline;
  }
  log(`${lost ? `${lost}; ` : ''}${setAside(baseline, problem)}; rebuilding from genesis and the transaction journal`);
  return undefined;
}

/** Writes `path` through `write(tmp)`, synced, then renamed over it: never a partial file under its name. */
function writeAtomically(path: string, write: (tmp: string) => void): void {
  const tmp = `${path}.tmp`;
  write(tmp);
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDirectory(path);
}

/** The rename itself survives a power cut once the directory is synced (not possible everywhere). */
function syncDirectory(path: string): void {
  try {
    const fd = openSync(dirname(path), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a directory: the rename is still atomic, only not yet durable.
  }
}

const gunzipAsync = promisify(gunzip);

/**
 * Saves the state of the anvil at `upstreamUrl` to `statePath` (`anvil_dumpState`, gzipped JSON,
 * as `--state` would write it): a temporary file, synced, then renamed. A failed dump leaves the
 * previous file as it was.
 */
export async function saveState(upstreamUrl: string, statePath: string): Promise<void> {
  const response = await fetch(upstreamUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await response.json()) as { result?: unknown; error?: { message?: string } };
  // Hex decoding stops at the first character that is not hex: a short buffer is a bad answer
  // (checked so, not by a regular expression over megabytes on the event loop).
  const gzipped = typeof answer.result === 'string' && answer.result.startsWith('0x') ? Buffer.from(answer.result.slice(2), 'hex') : null;
  if (!gzipped || gzipped.length * 2 !== (answer.result as string).length - 2) {
    throw new Error(`anvil_dumpState: ${answer.error?.message ?? 'no state in the answer'}`);
  }
  const json = await gunzipAsync(gzipped);
  const tmp = `${statePath}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(json);
    await fh.sync();
  } finally {
    await fh.close();
  }
  // Off the event loop: a periodic save must not stall the requests served meanwhile.
  await rename(tmp, statePath);
  await syncDirectoryAsync(statePath);
}

/** syncDirectory without blocking the event loop. */
async function syncDirectoryAsync(path: string): Promise<void> {
  try {
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Windows cannot open a directory: the rename is still atomic, only not yet durable.
  }
}
