/** The stdio MCP bridge's settings (docs/agents.md "The stdio bridge"): a separate program, read here like the service's. */
import { z } from 'zod';
import { parseUsd } from '../../domain/money.js';
import { ConfigError } from './config-error.js';
import { usd, type Env } from './env-values.js';

export interface BridgeConfig {
  /** The service the bridge forwards to; its MCP endpoint is `${baseUrl}/mcp`. */
  baseUrl: string;
  /** The key that pays; null: the bridge forwards, and paid tools answer their price without paying. */
  walletKey: `0x${string}` | null;
  /** At most this per call, in micro-USD: a dearer price is refused without signing. */
  maxPaymentUsd: bigint;
  /** At most this for the whole run, in micro-USD: past it every payment is refused without signing. */
  budgetUsd: bigint;
  /** How it pays: from a batch-settlement channel (the default: one deposit, a voucher per call, the rest refunded at exit), or one `exact` authorization per call. */
  payScheme: 'batch-settlement' | 'exact';
}

const bridgeSchema = z.object({
  BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  PORT: z.string().regex(/^\d+$/).optional(),
  WALLET_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key')
    .transform((v) => v as `0x${string}`)
    .optional(),
  MAX_PAYMENT_USD: usd.default(parseUsd('0.10')),
  BUDGET_USD: usd.default(parseUsd('1')),
  PAY_SCHEME: z.enum(['batch-settlement', 'exact']).default('batch-settlement'),
});

export function loadBridgeConfig(env: Env = process.env): BridgeConfig {
  // An empty variable (as MCP clients' JSON configs often leave one) is no setting.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = bridgeSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    baseUrl: (e.BASE_URL ?? `http://127.0.0.1:${e.PORT ?? '3000'}`).replace(/\/+$/, ''),
    walletKey: e.WALLET_KEY ?? null,
    maxPaymentUsd: e.MAX_PAYMENT_USD,
    budgetUsd: e.BUDGET_USD,
    payScheme: e.PAY_SCHEME,
  };
}
