/**
 * `npm start` as a person runs it, stopped as a process manager stops it: one SIGTERM to the
 * process that was started (npm) stops everything under it — the service and both anvil chains —
 * and frees the port. And a REDIS_URL with nothing listening is said at start, in one line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/free-ports.js';
import { pollUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-child.pid!, 'SIGKILL'); // whatever a failed test left behind
    } catch {
      // already gone
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function env(vars: Record<string, string>): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const key of Object.keys(clean)) {
    if (/^(PORT|HOST|BASE_URL|DATA_DIR|DATABASE_URL|REDIS_URL|DEVNET_PORT|RPC_URL_\d+|LOG_FORMAT|LOG_LEVEL|npm_.*)$/.test(key)) delete clean[key];
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-start-stop-'));
  dirs.push(dataDir);
  return { ...clean, DATA_DIR: dataDir, ...vars };
}

/** Starts `command`, in a process group of its own, and resolves with it once the banner is out. */
async function start(command: string, args: string[], vars: Record<string, string>): Promise<{ child: ChildProcess; stdout: () => string; stderr: () => string }> {
  const child = spawn(command, args, { cwd: root, env: env(vars), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('then:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${stderr}`)));
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Every live process under `pid`, from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('stops whole on one SIGTERM to the npm process: the service and both chains exit and the port closes', async () => {
    const port = await freePorts(1);
    const { child, stdout } = await start('npm', ['start'], { PORT: String(port), DEVNET_PORT: String(await freePorts()), LOG_LEVEL: 'warn' });
    const under = descendants(child.pid!);
    const commands = under.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    expect(commands.filter((c) => c.includes('anvil'))).toHaveLength(2);
    expect(commands.some((c) => c.includes('src/main.ts'))).toBe(true);
    expect(await listening(port)).toBe(true);

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    process.kill(child.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    await pollUntil(() => !under.some(alive), { stepMs: 200 });
    expect(under.filter(alive).map((pid) => commands[under.indexOf(pid)])).toEqual([]);
    expect(await listening(port)).toBe(false);
    expect(stdout()).toContain('SIGTERM: finishing in-flight requests and stopping');
  }, 120_000);

  it('says in one line when REDIS_URL does not answer, and serves on', async () => {
    const port = await freePorts(1);
    const nowhere = await freePorts(1);
    const service = await start('node', ['--import', 'tsx', 'src/main.ts'], {
      PORT: String(port),
      DEVNET_PORT: String(await freePorts()),
      REDIS_URL: `redis://127.0.0.1:${nowhere}`,
      LOG_LEVEL: 'warn',
    });
    await pollUntil(() => service.stderr().includes('warning'), { stepMs: 200 });
    expect(service.stderr()).toBe('warning: REDIS_URL does not answer — the free budget is counted in this process alone until it does (GET /health says "degraded")\n');
    expect(await listening(port)).toBe(true);
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    process.kill(service.child.pid!, 'SIGTERM');
    await exited;
  }, 120_000);
});
