/**
 * A start that fails for a setting says so in one line naming it (README "Quick start"): a
 * database that cannot be reached is a StartupError about DATABASE_URL — never repeating the URL's
 * password — and an address the server cannot listen on one about HOST; src/main.ts prints them
 * without a stack.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/bootstrap/config/config.js';
import { startService } from '../../src/bootstrap/compose.js';
import { StartupError } from '../../src/bootstrap/startup-error.js';
import { freePorts } from '../support/free-ports.js';

/** Real networks by name only: nothing is called before the database is opened. */
const REAL = {
  RPC_URL_8453: 'http://127.0.0.1:9/base',
  RPC_URL_84532: 'http://127.0.0.1:9/sepolia',
  PAY_TO_8453: '0x1111111111111111111111111111111111111111',
  PAY_TO_84532: '0x2222222222222222222222222222222222222222',
  TREASURY_KEY: `0x${'3'.repeat(64)}`,
  LAUNCH_FACTORY_8453: '0x4444444444444444444444444444444444444444',
  LAUNCH_FACTORY_84532: '0x5555555555555555555555555555555555555555',
  WORKERS: 'false',
  LOG_LEVEL: 'silent',
};

describe('start errors', () => {
  it('a database nobody answers at is one line naming DATABASE_URL, its host and the cause, not its password', async () => {
    const [port, nowhere] = [await freePorts(1), await freePorts(1)];
    const config = loadConfig({ ...REAL, PORT: String(port), DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${nowhere}/launchpad` });
    const error = await startService(config).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(`DATABASE_URL: cannot open the database at 127.0.0.1:${nowhere} (ECONNREFUSED) — start it, or set DATABASE_URL`);
  });

  it('a HOST that is not an address of this machine is one line naming HOST, before anything starts', async () => {
    const config = loadConfig({ ...REAL, HOST: '192.0.2.1', PORT: String(await freePorts(1)) }); // TEST-NET-1, never local
    const error = await startService(config).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe('HOST 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL) — set HOST');
  });
});
