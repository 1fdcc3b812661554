/** A real listening service over in-memory stores and the signature-checking fake facilitator. */
import { startService, type RunningService } from '../../src/app/compose.js';
import type { ApplicationDeps } from '../../src/app/application.js';
import { loadConfig } from '../../src/app/config.js';
import type { Clock } from '../../src/ports/clock.js';

/** Real time plus an offset tests can move (x402 signatures are checked against real time). */
export class ShiftableClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

export async function startTestService(
  overrides: Partial<ApplicationDeps> = {},
  env: Record<string, string> = {},
): Promise<RunningService> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_FREE_PER_MINUTE: '0', ...env });
  return startService(config, { replayWaitMs: 5_000, ...overrides });
}

export async function json(res: Response): Promise<any> {
  return res.json();
}
