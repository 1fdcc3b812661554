/**
 * A newcomer's first hour (docs/), scripted: `npm start` as the README runs it (src/main.ts on the
 * embedded devnet), a second instance beside it, a bad setting, and `npm run demo` (scripts/demo.ts)
 * three times in a row. What they print is what a person reads, so the assertions are on the exact lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIDTH } from '../../scripts/demo-format.js';
import { freePorts } from '../support/free-ports.js';
import { devAccount, devKey } from '../support/x402-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const dirs: string[] = [];

/** The environment of a clean shell: none of the service's settings but the ones given. */
function env(vars: Record<string, string>): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const key of Object.keys(clean)) {
    if (/^(PORT|HOST|BASE_URL|DATA_DIR|DATABASE_URL|REDIS_URL|DEVNET_PORT|RPC_URL_\d+|FACILITATOR_URL|PAY_TO_\d+|TREASURY_KEY|SETTLEMENT_KEY)$/.test(key)) {
      delete clean[key];
    }
  }
  return { ...clean, ...vars };
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-newcomer-'));
  dirs.push(dir);
  return dir;
}

/** Runs a script to its end. */
function run(script: string, vars: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [script], { cwd: root, env: env(vars), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let first: ChildProcess;
let banner = '';
let port: number;
let devnetPort: number;

beforeAll(async () => {
  port = await freePorts(1);
  devnetPort = await freePorts();
  first = spawn(tsx, ['src/main.ts'], {
    cwd: root,
    env: env({ PORT: String(port), DEVNET_PORT: String(devnetPort), DATA_DIR: dataDir(), LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  first.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    first.stdout!.on('data', (d: Buffer) => {
      banner += d.toString();
      if (banner.includes('then:')) resolve();
    });
    first.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(async () => {
  if (first && first.exitCode === null) {
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGTERM'); // the service stops its anvil children on the way out
    await exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('npm start', () => {
  it('prints the exact demo command for the port in use', () => {
    expect(banner).toContain(`x402 launchpad listening on http://127.0.0.1:${port}`);
    expect(banner).toContain(`then: PORT=${port} npm run demo`);
  });

  it('says what to open, what to run next and how to stop, with one funded devnet key to paste, said to be public', () => {
    expect(banner).toContain(`  open  http://127.0.0.1:${port}/ `);
    expect(banner).toContain(`  demo  PORT=${port} npm run demo `);
    expect(banner).toContain('  stop  Ctrl-C');
    expect(banner).toContain("anvil's well-known devnet key #5, public to everyone: never send it real money:\n  WALLET_KEY=0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba\n");
  });

  it('prints every funded demo wallet with its key, said to be public devnet keys, not only #5', () => {
    expect(banner).toContain("anvil's well-known devnet keys, public to everyone: never send them real money\n");
    for (let i = 1; i <= 9; i++) {
      const address = devAccount(i).address;
      expect(banner).toContain(`  #${i} ${address.slice(0, 6)}…${address.slice(-4)}  ${devKey(i)}\n`);
    }
    expect(banner).toContain('  production, eip155:8453\n  #1 ');
    expect(banner).toContain('  testnet, eip155:84532\n  #5 ');
  });

  it('a second instance with the same DEVNET_PORT refuses to start, in one line, instead of sharing the other’s chains', async () => {
    const second = await run('src/main.ts', { PORT: String(await freePorts(1)), DEVNET_PORT: String(devnetPort), DATA_DIR: dataDir() });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toBe(`DEVNET_PORT ${devnetPort} is in use (another devnet?) — set DEVNET_PORT\n`);
    expect(second.stdout).toBe('');
  }, 60_000);

  it('a PORT that is not a port refuses to start in one sentence naming PORT', async () => {
    const bad = await run('src/main.ts', { PORT: 'eighty', DATA_DIR: dataDir() });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toBe('Invalid configuration: PORT is "eighty", but it must be a whole number from 0 to 65535.\n');
    expect(bad.stdout).toBe('');
  }, 60_000);

  it('a busy PORT refuses to start in one line naming PORT', async () => {
    const second = await run('src/main.ts', { PORT: String(port), DEVNET_PORT: String(await freePorts()), DATA_DIR: dataDir() });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toBe(`PORT ${port} is in use (another instance?) — set PORT\n`);
    expect(second.stdout).toBe('');
  }, 60_000);
});

/**
 * A proxy in front of the service that answers 429 (Retry-After: 1, the service's envelope) to the
 * requests `refuse` picks, once each, and passes everything else through — event streams included.
 */
function rateLimitingProxy(target: number, refuse: (req: IncomingMessage) => boolean): Promise<{ server: Server; port: number; refused: string[] }> {
  const refused: string[] = [];
  const server = createServer((req, res) => {
    if (refuse(req)) {
      refused.push(`${req.method} ${req.url!.split('?')[0]}`);
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'Too many requests; slow down.', details: { limit: 100, windowSeconds: 60, retryAfterSeconds: 1 } } }));
      return;
    }
    const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, refused })));
}

describe('npm run demo', () => {
  it('runs three times in a row within the free budget, and waits out a 429 as its Retry-After says, saying so', async () => {
    // Every run pays from 127.0.0.1 against one budget of 100 free requests a minute.
    const runs = [await run('scripts/demo.ts', { PORT: String(port) }), await run('scripts/demo.ts', { PORT: String(port) })];
    const once = new Set<string>();
    const proxy = await rateLimitingProxy(port, (req) => {
      const key = req.url!.startsWith('/api/quote') ? 'quote' : req.url === '/entrypoints/token_info' && !req.headers['payment-signature'] ? 'info' : null;
      if (!key || once.has(key)) return false;
      once.add(key);
      return true;
    });
    try {
      runs.push(await run('scripts/demo.ts', { PORT: String(proxy.port) }));
    } finally {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
    for (const [i, demo] of runs.entries()) {
      expect(demo.stderr, `run ${i + 1}`).toBe('');
      expect(demo.code, `run ${i + 1}`).toBe(0);
      const wide = demo.stdout.split('\n').filter((l) => l.length > WIDTH);
      expect(wide, `run ${i + 1}: lines over ${WIDTH} columns`).toEqual([]);
      // The end says what happened, in three lines.
      expect(demo.stdout.trimEnd().split('\n').slice(-3), `run ${i + 1}`).toEqual([
        expect.stringMatching(/^done +launched 2 tokens with a \$5 dev buy each: D\w+ on eip155:84532, D\w+ on eip155:8453$/),
        expect.stringMatching(/^ +their buyers bought 3 ways for \$[\d.]+, paid once in EURC, sold 100000 each: \$[\d.]+ back$/),
        expect.stringMatching(/^ +on chain: every buy delivered, every payout paid; all on http:\/\/127\.0\.0\.1:\d+\/$/),
      ]);
    }
    expect(runs[0]!.stdout + runs[1]!.stdout).not.toContain('rate limited');
    expect(proxy.refused).toEqual(['GET /api/quote', 'POST /entrypoints/token_info']);
    const waits = runs[2]!.stdout.split('\n').filter((l) => l.startsWith('wait'));
    expect(waits).toEqual([
      'wait     429 on /api/quote: free budget spent (100 requests a minute); retrying in 1 s',
      'wait     429 on /entrypoints/token_info: free budget spent (100 requests a minute); retrying in 1 s',
    ]);
    const demo = runs[0]!;
    expect(demo.stdout).toMatch(/create +tok_\w+ D\w+ on eip155:84532/);
    expect(demo.stdout).toMatch(/create +tok_\w+ D\w+ on eip155:8453 /);
    expect(demo.stdout).toMatch(/deploy +0x[0-9a-fA-F]{40} DEPLOYED +tx 0x[0-9a-f]{4}…[0-9a-f]{4}$/m);
    expect(demo.stdout).toMatch(/deliver +[\d.]+ D\w+ to the wallet: CONFIRMED/);
    expect(demo.stdout).toMatch(/sell +100000 tokens for \$[\d.]+ \(fee \$[\d.]+\) +tx 0x[0-9a-f]{4}…[0-9a-f]{4}\n +pulled .* pull 0x[0-9a-f]{4}…[0-9a-f]{4}$/m);
    expect(demo.stdout).toMatch(/payout +\$[\d.]+ to the seller: CONFIRMED/);
    expect(demo.stdout).toMatch(/position [\d.]+ D\w+ \(on chain [\d.]+\)/);
    // The launch as a feature: a dev buy at the base fee, the launch fee waited out, every buy at 1%.
    expect(demo.stdout).toMatch(/dev buy +884495\.29 D\w+ for \$5 \(fee \$0\.05: the base 1%/);
    expect(demo.stdout).toMatch(/^price +\$0\.00000\d{4} now, \$0\.00000\d{4} after the dev buy/m);
    expect(demo.stdout).toMatch(/^launch +waiting \d+ s: a new token's fee starts at 50% and falls to 1%/m);
    expect(demo.stdout).toMatch(/buy_usd +[\d.]+ tokens for \$5 \(fee \$0\.05\)/);
    // The pages it made, to open.
    const pages = [...demo.stdout.matchAll(/^page +(http:\/\/127\.0\.0\.1:\d+\/#\/token\/tok_\w+)$/gm)].map((m) => m[1]);
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain(`http://127.0.0.1:${port}/#/token/`);
    expect(demo.stdout).toMatch(/^wallets +http:\/\/127\.0\.0\.1:\d+\/#\/wallet\/0x[0-9a-fA-F]{40} {2}\(creator\)\n +http:\/\/127\.0\.0\.1:\d+\/#\/wallet\/0x[0-9a-fA-F]{40} {2}\(buyer\)$/m);
  }, 480_000);

  it('where nothing listens, prints one line naming the address, PORT and BASE_URL', async () => {
    const nowhere = await freePorts(1);
    const demo = await run('scripts/demo.ts', { PORT: String(nowhere) });
    expect(demo.code).toBe(1);
    expect(demo.stdout).toBe('');
    expect(demo.stderr).toBe(
      `demo: nothing answers at http://127.0.0.1:${nowhere} (ECONNREFUSED) — start the service with \`npm start\`, or set PORT (or BASE_URL) to where it listens\n`,
    );
  }, 60_000);
});
