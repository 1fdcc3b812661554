/**
 * A TCP port someone else already listens on. The HTTP server reports it with this class, and the
 * composition root probes with `listenProblem` before it starts anything, so it can name the
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
 * Why `host:port` cannot be listened on right now — the bind error's code (`EADDRINUSE`,
 * `EADDRNOTAVAIL` for an address not of this machine, `ENOTFOUND` for a name that does not
 * resolve, `EACCES` for a privileged port), or null when it can.
 */
export function listenProblem(port: number, host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}
