/**
 * The processes a benchmark measures, each started as `npm start` starts the service — node with
 * tsx's loader on a TypeScript entry point — in its own process group, so the load generator
 * (this process) never shares an event loop with what it measures, and one kill ends a process
 * and its anvil children together. `BENCH_PROFILE=<dir>` adds --cpu-prof to the service.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnListening } from '../test/support/service-process.js';
import type { WorkCounts } from './instrument.js';

export interface BenchProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resident set size of the node process, in MiB (Linux /proc). */
  rssMiB(): number;
  /** The work counted so far (bench/instrument.ts), when started with `counts`. */
  counts(): Promise<WorkCounts>;
  stop(): Promise<void>;
}

let sockets = 0;

/** The totals bench/instrument.ts keeps in the process listening on `socket`. */
function readCounts(socket: string): Promise<WorkCounts> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path: '/' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(JSON.parse(body) as WorkCounts));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function startProcess(
  entry: string,
  env: Record<string, string>,
  options: { nodeArgs?: string[]; timeoutMs?: number; counts?: boolean } = {},
): Promise<BenchProcess> {
  const socket = options.counts ? join(tmpdir(), `launchpad-bench-${process.pid}-${++sockets}.sock`) : null;
  const instrument = socket ? ['--import', './bench/instrument.ts'] : [];
  const { child, url, output, exited } = await spawnListening(
    [...(options.nodeArgs ?? []), '--import', 'tsx', ...instrument, entry],
    { ...env, ...(socket ? { BENCH_COUNTS_SOCKET: socket } : {}) },
    entry,
    options.timeoutMs ?? 90_000,
  );
  return {
    child,
    url,
    output,
    counts() {
      if (!socket) return Promise.reject(new Error(`${entry} was started without counts`));
      return readCounts(socket);
    },
    rssMiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    async stop() {
      if (socket) rmSync(socket, { force: true });
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

/** The process ids of a process group (from /proc). */
function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * The local ports of the TCP connections a process group holds to `remotePort` (a database
 * server's): its sockets' inodes, from /proc/<pid>/fd, found in /proc/net/tcp and tcp6.
 */
export function groupClientPorts(pgid: number, remotePort: number): Set<number> {
  const inodes = new Set<string>();
  for (const pid of groupPids(pgid)) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let rows: string[];
    try {
      rows = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const row of rows) {
      const f = row.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      if (parseInt(f[2]!.split(':')[1]!, 16) === remotePort) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * CPU time (user + system, ms) by process id of the PostgreSQL backends serving connections from
 * `ports` on this machine: a backend's title names its client's address and port
 * (`postgres: 15/main: postgres test 127.0.0.1(57194) idle`), so on a shared server only the
 * benchmarked process's own backends are counted.
 */
export function backendCpuMs(ports: Set<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const port = /\((\d+)\)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
      if (!port || !ports.has(Number(port))) continue;
      const fields = stat.slice(close + 2).split(' ');
      out.set(Number(pid), (Number(fields[11]) + Number(fields[12])) * (1000 / 100));
    } catch {
      // gone meanwhile
    }
  }
  return out;
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
