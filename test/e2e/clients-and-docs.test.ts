/**
 * The repository stands alone (docs/): README and docs point only at files a clone has. The
 * client examples in docs/clients.md are the files in examples/ (docs/), and the TypeScript one
 * pays a running service as it is.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { freePorts } from '../support/free-ports.js';
import { startTestService } from '../support/service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}
const DOCS = ['README.md', ...markdownFiles('docs')];

describe('README and docs', () => {
  it('point only inside the repository: every link and every path they name exists', () => {
    const missing: string[] = [];
    for (const doc of DOCS) {
      const text = read(doc);
      expect(text, doc).not.toMatch(/\.\.\/shared|SPEC\.md|STYLE\.md|SPEC §/);
      const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
      for (const link of links) if (!existsSync(join(root, dirname(doc), link))) missing.push(`${doc} → ${link}`);
      const paths = [...text.matchAll(/`((?:docs|examples|src|scripts|contracts|test)\/[\w./-]*\w)`/g)].map((m) => m[1]!);
      for (const path of paths) if (!existsSync(join(root, path))) missing.push(`${doc} names ${path}`);
    }
    expect(missing).toEqual([]);
  });

  it('the README quick start names the wallet hint and links the API and client docs', () => {
    const readme = read('README.md');
    const quickStart = readme.slice(0, readme.indexOf('## What it is'));
    expect(quickStart).toContain('X-Wallet-Address');
    expect(quickStart).toContain('docs/clients.md');
    expect(readme).toContain('](docs/api.md)');
    expect(readme).toMatch(/## Platforms[\s\S]*Linux x64/);
  });

  it('the README opens with what the service does, the two commands, what to open, how to stop and where PORT goes', () => {
    const readme = read('README.md');
    const firstScreen = readme.slice(0, readme.indexOf('\n## '));
    const [intro] = firstScreen.split('```sh');
    expect(intro!.replace(/^# .*\n/, '').trim().split(/(?<=[.!?])\s+(?=[A-Z])/)).toHaveLength(2);
    expect(firstScreen).toMatch(/```sh\nnpm install && npm start +#[^\n]*\nnpm install && npm test +#[^\n]*\n```/);
    expect(firstScreen).toContain('open **http://127.0.0.1:3000**');
    expect(firstScreen).toContain('Ctrl-C');
    expect(firstScreen).toContain('PORT=4000 npm start');
    expect(firstScreen).toContain('](docs/configuration.md)');
    expect(readme.slice(0, readme.indexOf('## Quick start'))).toMatch(/```mermaid\nsequenceDiagram[\s\S]*402[\s\S]*PAYMENT-SIGNATURE[\s\S]*```/);
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200); // a screen or four: detail is in docs/
  });

  it("the README's pictures of the page are the ones npm run screenshots writes, every one of them", () => {
    const readme = read('README.md');
    const script = read('scripts/screenshots.ts');
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.screenshots).toBe('tsx scripts/screenshots.ts');
    const written = [...script.matchAll(/shoot\(page, '([\w-]+)'/g)].map((m) => `docs/images/${m[1]}.png`);
    const shown = [...readme.matchAll(/(docs\/images\/[\w-]+\.png)/g)].map((m) => m[1]!);
    expect(written.length).toBeGreaterThanOrEqual(3);
    expect(new Set(shown)).toEqual(new Set(written));
    expect(readdirSync(join(root, 'docs/images')).map((f) => `docs/images/${f}`).sort()).toEqual([...written].sort());
  });

  it('docs/configuration.md lists every setting the service reads', () => {
    const doc = read('docs/configuration.md');
    // Each concern's file in src/bootstrap/config declares its settings as `  NAME: schema,`.
    const dir = 'src/bootstrap/config';
    const sources = readdirSync(join(root, dir)).filter((f) => f.endsWith('.ts')).map((f) => read(`${dir}/${f}`));
    const settings = [...new Set(sources.flatMap((config) => [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!)))];
    expect(settings.length).toBeGreaterThan(40);
    const named = (key: string) => doc.includes(`\`${key}\``) || doc.includes(`_${key.split('_').pop()}\``);
    expect(settings.filter((k) => !named(k))).toEqual([]);
  });

  it("the README's test section tells what npm test needs, and the command that runs the rest exists", () => {
    const readme = read('README.md');
    const tests = readme.slice(readme.indexOf('## Tests'), readme.indexOf('\n## ', readme.indexOf('## Tests') + 1));
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(tests).toMatch(/PostgreSQL[\s\S]*Redis[\s\S]*minutes/);
    expect(tests).toContain('npm run test:no-services');
    expect(scripts['test:no-services']).toContain('vitest run --mode no-services');
    expect(read('.ci/run')).toMatch(/\nnpm test\n/);
  });

  it("the code map (docs/architecture.md, linked from the README) names every contract and every adapter", () => {
    expect(read('README.md')).toContain('docs/architecture.md#map-of-the-code');
    const doc = read('docs/architecture.md');
    const map = doc.slice(doc.indexOf('## Map of the code')).replace(/,\s*\n\s*/g, ',');
    // `dex/{viem,fake}` names dex/viem and dex/fake.
    const named = new Set<string>();
    for (const m of map.matchAll(/([\w-]+)\/\{([^}]+)\}/g)) for (const t of m[2]!.split(',')) named.add(`${m[1]}/${t.trim()}`);
    for (const m of map.matchAll(/([\w-]+)\/([\w-]+)/g)) named.add(`${m[1]}/${m[2]}`);
    const adapters = readdirSync(join(root, 'src/adapters'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((c) => readdirSync(join(root, 'src/adapters', c.name), { withFileTypes: true }).filter((t) => t.isDirectory()).map((t) => `${c.name}/${t.name}`));
    expect(adapters.filter((a) => !named.has(a))).toEqual([]);
    const contracts = readdirSync(join(root, 'contracts')).filter((f) => f.endsWith('.sol'));
    expect(contracts.filter((c) => !map.includes(c))).toEqual([]);
  });

  it('the repository has a LICENSE, and the README and package.json name the same one', () => {
    const license = (JSON.parse(read('package.json')) as { license: string }).license;
    expect(read('LICENSE')).toMatch(new RegExp(`^${license} License`));
    expect(read('README.md')).toMatch(new RegExp(`## License\\s+${license}\\b`));
  });

  it('docs/clients.md shows the example files exactly as they are', () => {
    const clients = read('docs/clients.md');
    for (const example of ['examples/pay-with-fetch.ts', 'examples/python/pay_with_requests.py', 'examples/python/pay_with_httpx.py']) {
      expect(clients, example).toContain(read(example));
    }
  });
});

describe('examples/pay-with-fetch.ts', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  /** The example as a user runs it, with the service's settings: PORT only, like `npm start`. */
  const example = (port: string) => {
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: port };
    delete env.WALLET_KEY; // the example's default: devnet wallet #5
    delete env.BASE_URL;
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(tsx, ['examples/pay-with-fetch.ts'], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  };

  it('where nothing listens, says so in one line naming the address, PORT and BASE_URL', async () => {
    const nowhere = String(await freePorts(1));
    const result = await example(nowhere);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `pay-with-fetch: nothing answers at http://127.0.0.1:${nowhere} (ECONNREFUSED) — start the service with \`npm start\`, or set PORT (or BASE_URL) to where it listens\n`,
    );
  }, 60_000);

  it('pays a running service with @x402/fetch, found by its PORT: create, buy and info, each with a settlement', async () => {
    const result = await example(new URL(service.url).port);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^wallet +0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc pays on eip155:84532$/m);
    expect(result.stdout).toMatch(/^create +tok_\w{26} FCAT on eip155:84532 +tx 0x[0-9a-f]{64}$/m);
    expect(result.stdout).toMatch(/^buy +884495\.291384607698648614 tokens for \$5 \(fee \$0\.05\) +same tx$/m);
    expect(result.stdout).toMatch(/^info +price \$[\d.]+, 1 holder\(s\) +tx 0x[0-9a-f]{64}$/m);
  }, 60_000);
});
