/**
 * Free TCP ports for the devnets tests start: two consecutive ones (chain 8453 on the first,
 * 84532 on the next), probed by binding them, so suites that run at the same time — in one
 * vitest run or in several checkouts on one machine — never meet on a port.
 */
import { createServer } from 'node:net';
import { pollUntil } from './wait.js';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/** The first of `count` consecutive free ports (default 2: one devnet). */
export async function freePorts(count = 2): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    // Below Linux's ephemeral range (32768–60999): a port a test reuses after a kill -9 (the crash
    // tests restart on the same PORT) must not meanwhile become the local end of some outgoing
    // connection, which the kernel picks from that range.
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((p) => taken.has(p))) continue;
    if ((await Promise.all(ports.map(canBind))).every(Boolean)) {
      for (const p of ports) taken.add(p);
      return base;
    }
  }
  throw new Error('no free port pair found');
}

/**
 * Waits (at most `timeoutMs`) until `port` can be bound again: a service killed with -9 whose
 * launcher has exited may still hold its listening socket for a moment while the kernel tears
 * the process down, and a restart on the same PORT then meets EADDRINUSE (seen on a loaded CI).
 */
export async function portFreed(port: number, timeoutMs = 30_000): Promise<void> {
  await pollUntil(() => canBind(port), { timeoutMs, stepMs: 50 });
}
