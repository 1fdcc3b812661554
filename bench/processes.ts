/**
 * The processes a benchmark measures, each started as `npm start` starts the service — node with
 * tsx's loader on a TypeScript entry point — in its own process group, so the load generator
 * (this process) never shares an event loop with what it measures, and one kill ends a process
 * and its anvil children together. `BENCH_PROFILE=<dir>` adds --cpu-prof to the service.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { spawnListening } from '../test/support/service-process.js';

export interface BenchProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resident set size of the node process, in MiB (Linux /proc). */
  rssMiB(): number;
  stop(): Promise<void>;
}

export async function startProcess(entry: string, env: Record<string, string>, options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<BenchProcess> {
  const { child, url, output, exited } = await spawnListening([...(options.nodeArgs ?? []), '--import', 'tsx', entry], env, entry, options.timeoutMs ?? 90_000);
  return {
    child,
    url,
    output,
    rssMiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }, 15_000);
      await exited;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL'); // anvil children, if any outlived the service
      } catch {
        // gone
      }
    },
  };
}

/**
 * CPU time (user + system, ms) of every process in a process group, by command name (`node`,
 * `anvil`, …), from /proc: a benchmark process and the anvil it started are one group.
 */
export function groupCpuMs(pgid: number): Record<string, number> {
  const out: Record<string, number> = {};
  const tick = 1000 / 100; // USER_HZ
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' '); // fields from the 3rd: state, ppid, pgrp, …
    if (Number(fields[2]) !== pgid) continue;
    out[comm] = (out[comm] ?? 0) + (Number(fields[11]) + Number(fields[12])) * tick; // utime, stime
  }
  return out;
}
