/**
 * docs/clients.md's x402 v1 example, run as a reader saves and runs it (`npx tsx pay-v1.mts`, the
 * v1 clients the tests pin, test/v1-clients): it finds the service by PORT alone, creates a token
 * with x402-fetch, waits out the token's launch fee (a few seconds here, 20 s by default) and buys
 * with x402-axios at the base fee — 1% of $5, not the up to 50% of the token's first seconds.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { startTestService } from '../support/service.js';
import { devKey } from '../support/x402-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LAUNCH_FEE_SECONDS = 3;
let service: RunningService;
let dir: string;

/** The v1 section's TypeScript block of docs/clients.md. */
function v1Example(): string {
  const clients = readFileSync(join(root, 'docs', 'clients.md'), 'utf8');
  const section = clients.slice(clients.indexOf('## TypeScript: x402 v1 clients'));
  return /```ts\n([\s\S]*?)```/.exec(section)![1]!;
}

beforeAll(async () => {
  service = await startTestService({}, { LAUNCH_FEE_DECAY_SECONDS: String(LAUNCH_FEE_SECONDS) });
  dir = mkdtempSync(join(tmpdir(), 'launchpad-v1-example-'));
  symlinkSync(join(root, 'test', 'v1-clients', 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'pay-v1.mts'), v1Example());
});

afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("docs/clients.md's x402 v1 example", () => {
  it('finds the service by PORT, waits out the launch fee and buys at the base 1%', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: new URL(service.url).port, WALLET_KEY: devKey(5) };
    delete env.BASE_URL;
    const started = Date.now();
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['pay-v1.mts'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^201 \{.*success: true.*network: 'base-sepolia'/s);
    // Only the base fee: $0.05 on $5; within the launch fee it would have been up to $2.5.
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^[\d.]+ 0\.05 0x[0-9a-f]{64}$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LAUNCH_FEE_SECONDS * 1000);
  }, 60_000);
});
