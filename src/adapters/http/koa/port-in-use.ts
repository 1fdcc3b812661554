/**
 * A TCP port someone else already listens on. The adapters that listen (the HTTP server, the
 * devnet) report it with this class so the composition root can name the setting to change in
 * one line instead of a stack.
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
