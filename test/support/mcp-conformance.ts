/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`), run against our /mcp
 * (decisions 0042 and 0071) in two releases side by side: the stable 0.1 line, which speaks the
 * 2025 revisions (the `initialize` handshake), and the 0.2 line, which runs its scenarios on the
 * 2026-07-28 wire (the per-request `_meta` envelope). Both are installed once, pinned, into
 * `.cache/conformance` (gitignored) — the newer one under an npm alias — and never into the
 * project's node_modules. They run on the project's own Node (24; the suite needs ≥ 22).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each suite: the package under `.cache/conformance/node_modules`, its version, and the arguments it runs with. */
export const SUITES = {
  /** 2025 revisions (initialize). */
  stable: { dir: '@modelcontextprotocol/conformance', version: '0.1.16', args: [] as string[] },
  /** The 2026-07-28 wire: every active scenario at that revision. */
  next: { dir: 'conformance-next', version: '0.2.0-alpha.12', args: ['--requirements', '2026-07-28'] },
} as const;
export type SuiteName = keyof typeof SUITES;

export const CACHE_DIR = fileURLToPath(new URL('../../.cache/conformance', import.meta.url));
const suiteDir = (name: SuiteName) => join(CACHE_DIR, 'node_modules', SUITES[name].dir);

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

/** Installs both pinned suites into the cache, unless they are there already. */
export async function ensureConformanceSuites(): Promise<void> {
  const names = Object.keys(SUITES) as SuiteName[];
  if (names.every((n) => installedVersion(suiteDir(n)) === SUITES[n].version)) return;
  mkdirSync(CACHE_DIR, { recursive: true });
  const dependencies = Object.fromEntries(
    names.map((n) => {
      const { dir, version } = SUITES[n];
      return [dir, dir === '@modelcontextprotocol/conformance' ? version : `npm:@modelcontextprotocol/conformance@${version}`];
    }),
  );
  writeFileSync(join(CACHE_DIR, 'package.json'), `${JSON.stringify({ private: true, dependencies }, null, 2)}\n`);
  const { code, out } = await run('npm', ['install', '--prefix', CACHE_DIR, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], 240_000);
  const missing = names.filter((n) => installedVersion(suiteDir(n)) !== SUITES[n].version);
  if (code !== 0 || missing.length > 0) throw new Error(`installing the MCP conformance suites into ${CACHE_DIR} failed (npm exit ${code}; missing ${missing.join(', ')}):\n${out}`);
}

/** Runs one suite's active server scenarios against `url`; the checks of each scenario by its name. */
export async function runServerScenarios(url: string, suite: SuiteName): Promise<Map<string, ConformanceCheck[]>> {
  const outDir = mkdtempSync(join(tmpdir(), `launchpad-mcp-conformance-${suite}-`));
  try {
    const entry = join(suiteDir(suite), 'dist/index.js');
    if (!existsSync(entry)) throw new Error(`no MCP conformance suite at ${entry}: call ensureConformanceSuites() first`);
    const { code, out } = await run(process.execPath, [entry, 'server', '--url', url, '--output-dir', outDir, ...SUITES[suite].args], 240_000);
    const results = new Map<string, ConformanceCheck[]>();
    // Each scenario writes server-<scenario>-<ISO time with dashes>/checks.json.
    for (const dir of readdirSync(outDir)) {
      const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
      if (m && existsSync(join(outDir, dir, 'checks.json'))) results.set(m[1]!, JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as ConformanceCheck[]);
    }
    if (results.size === 0) throw new Error(`the MCP conformance suite ${suite} wrote no results (exit ${code}):\n${out}`);
    return results;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
