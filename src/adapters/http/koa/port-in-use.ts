/**
 * A TCP port someone else already listens on. The HTTP server reports it with this class, and the
 * composition root probes with `portIsFree` before it starts anything, so it can name the
 * setting to change in one line instead of a stack (the devnet has its own DevnetPortInUse).
 */
import { createServer } from 'node:net';

export class PortInUse extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(`${host}:${port} is in use`);
    this.name = 'PortInUse';
  }
}

/**
 * Whether `host:port` is free of other listeners right now (port 0 always is). Only
 * EADDRINUSE counts as taken: any other bind error is left for the real listen to report.
 */
export function portIsFree(port: number, host: string): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code !== 'EADDRINUSE'));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
