/**
 * The service as `npm start` runs it — a child process (tsx src/main.ts) with its own devnet —
 * in its own process group, so a test can kill the service and both chains together with one
 * kill -9, and start it again on the same data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { MikroORM } from '@mikro-orm/core';
import { join } from 'node:path';
import { ormOptionsFor } from '../../src/adapters/persistence/mikro-orm/orm-options.js';
import { freePorts, portFreed } from './free-ports.js';

/**
 * The environment of a service process of its own on `dataDir` and `databaseUrl`: free ports for
 * it and its two chains (the testnet's RPC at `devnetPort + 1`), no free budget, quiet logs;
 * `extra` adds or overrides settings.
 */
export async function serviceProcessEnv(dataDir: string, databaseUrl: string, extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; devnetPort: number }> {
  const devnetPort = await freePorts();
  const env = {
    PORT: String(await freePorts(1)),
    DEVNET_PORT: String(devnetPort),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'error',
    RATE_LIMIT_FREE_PER_MINUTE: '0',
    ...extra,
  };
  return { env, devnetPort };
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** kill -9 of the whole process group: node and both anvil processes at once. */
  killAll(): Promise<void>;
  /** SIGTERM and wait: the graceful stop. */
  stop(): Promise<void>;
}

/**
 * Spawns `node <args>` in its own process group and waits until it prints "listening on <url>";
 * its exit before that (or the timeout) rejects with everything it printed.
 */
export async function spawnListening(
  args: string[],
  env: Record<string, string>,
  label: string,
  timeoutMs: number,
): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<void> }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LAUNCH_FEE_DECAY_SECONDS: '0', ...env }, // the plain curve from the first second
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${out}`));
    });
  });
  return { child, url, output: () => out, exited };
}

/** `entry`: src/main.ts, or a test's variant of it (test/support/crashing-service.ts). */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 60_000, entry = join('src', 'main.ts')): Promise<ServiceProcess> {
  // A restart on the PORT of a process just killed: its socket may outlive it by a moment.
  if (env.PORT) await portFreed(Number(env.PORT));
  const { child, url, output, exited } = await spawnListening([join('node_modules', 'tsx', 'dist', 'cli.mjs'), entry], env, 'service', timeoutMs);
  return {
    child,
    url,
    output,
    async killAll() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      // Whatever it started and left behind goes with it: a clean CI run once found the devnet's
      // two anvils of the crash test's restarted service still running after its stop.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // none left
      }
    },
  };
}

/** Rows straight from the service's database (SQLite file or PostgreSQL schema), for the books. */
export async function queryDatabase<T = Record<string, unknown>>(databaseUrl: string, sql: string): Promise<T[]> {
  // No migrations: the service made the schema (its search_path comes with the options).
  const orm = await MikroORM.init({ ...ormOptionsFor(databaseUrl, 1).options, extensions: [] });
  try {
    return (await orm.em.getConnection().execute(sql)) as T[];
  } finally {
    await orm.close(true);
  }
}
