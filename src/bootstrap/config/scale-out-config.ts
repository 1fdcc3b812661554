/** What several processes share (docs/operations.md, "Scale-out"): the database, Redis, the shared settings' changes. */
import { join } from 'node:path';
import { z } from 'zod';
import type { Parsed } from './env-values.js';

export const scaleOutEnv = {
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:|postgres(ql)?:\/\/)/, 'must be sqlite:<path> or postgres://…')
    .optional(),
  REDIS_URL: z.string().optional(),
  ACCEPT_SETTINGS_CHANGE: z
    .string()
    .regex(/^[A-Za-z0-9_ ]+(,[A-Za-z0-9_ ]+)*$/, 'must be setting names separated by commas, e.g. "PAY_TO_8453,LAUNCH_FACTORY_8453"')
    .optional(),
};

export interface ScaleOutConfig {
  /** `sqlite:<path>` (default: DATA_DIR/service.db) or `postgres://…`. */
  databaseUrl: string;
  redisUrl: string | undefined;
  /** Shared settings this process records over what the database holds (docs/decisions/0032). */
  acceptSettingsChange: string[];
}

export function readScaleOut(e: Parsed<typeof scaleOutEnv>, dataDir: string): ScaleOutConfig {
  return {
    databaseUrl: e.DATABASE_URL ?? `sqlite:${join(dataDir, 'service.db')}`,
    redisUrl: e.REDIS_URL,
    acceptSettingsChange: (e.ACCEPT_SETTINGS_CHANGE ?? '').split(',').map((v) => v.trim()).filter(Boolean),
  };
}
