/**
 * The compiled build (README "Production build", docs/decisions/0037-compiled-build-for-production.md):
 * `npm run build` writes dist/, and `node dist/main.js` — plain node, no tsx — serves the same API
 * as the sources on the embedded devnet, paid requests included; what dist/ imports is installed
 * by a production install (`npm ci --omit=dev`), so no dev-only package is needed at run time.
 */
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, writePageFiles } from '../../src/adapters/web/esbuild/page-files.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { freePorts } from '../support/free-ports.js';
import { startTestService } from '../support/service.js';
import { spawnListening } from '../support/service-process.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), ext) : e.name.endsWith(ext) ? [join(dir, e.name)] : [],
  );
}

/** `npm run build`: the server (tsc is incremental, so an up-to-date dist/ costs little), then the page. */
async function build(): Promise<void> {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
  await writePageFiles(await buildPage(), join(root, 'dist', 'web'));
}

/** Method and path of every operation the OpenAPI document names. */
async function operations(url: string): Promise<string[]> {
  const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
}

let compiled: Awaited<ReturnType<typeof spawnListening>>;
let fromSource: RunningService;
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-dist-'));

beforeAll(async () => {
  await build();
  compiled = await spawnListening(
    [join(root, 'dist', 'main.js')],
    { PORT: String(await freePorts(1)), DEVNET_PORT: String(await freePorts()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    'node dist/main.js',
    60_000,
  );
  fromSource = await startTestService();
}, 180_000);

afterAll(async () => {
  if (compiled && compiled.child.exitCode === null) {
    process.kill(-compiled.child.pid!, 'SIGTERM'); // the service stops its anvil children on the way out
    await compiled.exited;
  }
  await fromSource?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

describe('npm run build', () => {
  it('writes dist/main.js and the contract artifacts beside the compiled code, no TypeScript', () => {
    const dist = join(root, 'dist');
    expect(statSync(join(dist, 'main.js')).isFile()).toBe(true);
    for (const artifact of ['artifacts.json', 'uniswap-v2.json']) expect(statSync(join(dist, 'adapters', 'kit', 'evm', 'contracts', artifact)).isFile()).toBe(true);
    expect(files(dist, '.ts').filter((f) => !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('imports only Node built-ins and packages a production install keeps (no tsx, no @x402/fetch, no Uniswap package)', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const builtins = new Set(builtinModules);
    const imported = new Set<string>();
    // dist/web holds the page's browser bundles: whatever they name is for the browser, never resolved by Node
    // (the Sign-In-With-X code the page loads tries an optional `import("ethers")` and falls back without it).
    for (const file of files(join(root, 'dist'), '.js').filter((f) => !f.startsWith(join(root, 'dist', 'web')))) {
      const code = readFileSync(file, 'utf8');
      // Static and dynamic imports (createRequire lookups are the optional anvil package, and tsx's
      // loader only on the path that runs from source: journaled-rpc.ts).
      for (const m of code.matchAll(/(?:^import\s[^'"]*?\bfrom\s*|^export\s[^'"]*?\bfrom\s*|^import\s*|\bimport\(\s*)['"]([^'"./][^'"]*)['"]/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('node:') || builtins.has(spec.split('/')[0]!)) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const devOnly = [...imported].filter((pkg) => !lock.packages[`node_modules/${pkg}`] || lock.packages[`node_modules/${pkg}`]!.dev);
    expect(devOnly).toEqual([]);
    for (const pkg of ['tsx', '@x402/fetch', '@uniswap/v2-core', '@uniswap/v2-periphery']) expect(lock.packages[`node_modules/${pkg}`]?.dev, pkg).toBe(true);
    expect(imported).toContain('koa');
  });
});

describe('node dist/main.js', () => {
  it('serves the same operations as the sources', async () => {
    const ops = await operations(compiled.url);
    expect(ops).toEqual(await operations(fromSource.url));
    expect(ops).toContain('POST /entrypoints/token_buy_usd');
  });

  it('answers the free routes, and a paid one with its 402 and then, paid on the devnet, 201', async () => {
    const health = (await (await fetch(`${compiled.url}/health`)).json()) as { data: { status: string; checks: { chain: string } } };
    expect(health.data).toMatchObject({ status: 'ok', checks: { chain: 'ok' } });
    expect((await fetch(`${compiled.url}/tokens`)).status).toBe(200);
    expect((await fetch(`${compiled.url}/.well-known/x402`)).status).toBe(200);
    const page = await fetch(`${compiled.url}/`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    const body = JSON.stringify({ name: 'Compiled', symbol: 'DIST' });
    const headers = { 'content-type': 'application/json', 'x-wallet-address': devAccount(5).address };
    const unpaid = await fetch(`${compiled.url}/tokens`, { method: 'POST', headers, body });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('payment-required')).toBeTruthy();
    const paid = await payingFetch(devAccount(5))(`${compiled.url}/tokens`, { method: 'POST', headers, body });
    expect(paid.status).toBe(201);
    expect(((await paid.json()) as { data: { network: string } }).data.network).toBe('eip155:84532');
    expect(compiled.output()).not.toContain('"level":"error"');
  }, 60_000);
});
