/**
 * What the root makes of a start that fails for a setting: the one line an operator reads
 * (src/main.ts prints it without a stack), naming the setting to change.
 */
import { DataDirInUse, DataDirLock } from './data-dir-lock.js';
import type { Config } from './config/config.js';
import { StartupError } from './startup-error.js';

export const portInUse = (config: Config) => new StartupError(`PORT ${config.port} is in use (another instance?) — set PORT`);

/** The one line for an address the HTTP server cannot listen on, naming the setting to change. */
export function listenRefusal(config: Config, code: string): StartupError {
  if (code === 'EADDRINUSE') return portInUse(config);
  if (code === 'EACCES') return new StartupError(`PORT ${config.port} needs privileges to listen on (EACCES) — set PORT above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL') {
    return new StartupError(`HOST ${config.host} is not an address of this machine (${code}) — set HOST`);
  }
  return new StartupError(`cannot listen on HOST ${config.host}, PORT ${config.port} (${code}) — set HOST or PORT`);
}

/**
 * The one line for a database that cannot be opened: where (host and port, never the URL's
 * credentials) and why, naming DATABASE_URL; anything else is not the operator's to fix.
 */
export function databaseUnreachable(config: Config, e: unknown): unknown {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (!err || typeof err.code !== 'string' || !/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ECONNRESET|SQLITE_CANTOPEN|28P01|28000|3D000)$/.test(err.code)) return e;
  let where = config.databaseUrl;
  try {
    if (!where.startsWith('sqlite:')) where = new URL(where).host;
  } catch {
    where = 'the configured database';
  }
  const fix = err.code.startsWith('28') ? "authentication failed) — fix DATABASE_URL's user or password" : err.code === '3D000' ? 'no such database) — set DATABASE_URL' : `${err.code}) — start it, or set DATABASE_URL`;
  return new StartupError(`DATABASE_URL: cannot open the database at ${where} (${fix}`);
}

/** DATA_DIR's lock, or the one line that says another instance holds it. */
export async function lockDataDir(config: Config): Promise<DataDirLock> {
  try {
    return await DataDirLock.acquire(config.dataDir);
  } catch (e) {
    if (!(e instanceof DataDirInUse)) throw e;
    const who = e.holderPid ? `another instance, pid ${e.holderPid}` : 'another instance?';
    throw new StartupError(`DATA_DIR ${config.dataDir} is in use (${who}) — set DATA_DIR`);
  }
}
