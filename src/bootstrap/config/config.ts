/**
 * The only reader of the environment (docs/operations.md). Every variable is checked at start; a bad
 * value stops the service with a message naming it. Each concern names its own variables in its
 * file; this one puts them together, checks them in one pass and builds the configuration.
 */
import { privateKeyToAddress } from 'viem/accounts';
import { z } from 'zod';
import { PRODUCTION, TESTNET } from '../../domain/network.js';
import { DEFAULT_SETTINGS } from '../../app/kit/default-settings.js';
import type { Settings } from '../../app/kit/settings.js';
import { chainEnv, isRealChain, readChain, readPayTo, type ChainConfig } from './chain-config.js';
import { ConfigError } from './config-error.js';
import type { Env } from './env-values.js';
import { feesEnv, readFees } from './fees-config.js';
import { quoteEnv, readQuotes, readQuoteSettings, type QuoteConfig } from './quote-config.js';
import { refusals } from './refusal.js';
import { readScaleOut, scaleOutEnv, type ScaleOutConfig } from './scale-out-config.js';
import { readServer, serverEnv, type ServerConfig } from './server-config.js';
import { readWorkers, workerEnv, type WorkerConfig } from './worker-config.js';

export { ConfigError } from './config-error.js';

const envSchema = z.object({ ...serverEnv, ...scaleOutEnv, ...chainEnv, ...feesEnv, ...workerEnv, ...quoteEnv });

export interface Config extends ServerConfig, ScaleOutConfig, ChainConfig, WorkerConfig {
  quotes: QuoteConfig;
  /** What the use cases read (src/app/kit/settings.ts). */
  settings: Settings;
}

export function loadConfig(env: Env = process.env): Config {
  // `PORT=` would coerce to 0, a random port nobody asked for: refused like any other non-number.
  if (env.PORT?.trim() === '') throw new ConfigError('Invalid configuration: PORT is "", but it must be a whole number from 0 to 65535 (unset it for 3000).');
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(refusals(envSchema, env, parsed.error.issues));
  const e = parsed.data;
  const fees = readFees(e);
  const chain = readChain(e);
  const quoteSettings = readQuoteSettings(e);
  const server = readServer(e);
  return {
    ...server,
    ...readScaleOut(e, server.dataDir),
    ...chain,
    ...readWorkers(e, isRealChain(e)),
    quotes: readQuotes(e, isRealChain(e)),
    settings: { ...DEFAULT_SETTINGS, ...fees, ...quoteSettings, payTo: readPayTo(e), batchSettlement: batchSettlementOf(chain), upto: uptoOf(chain) },
  };
}

/**
 * The batch-settlement scheme's receiver authorizer is the key that signs its claims and refunds:
 * the settlement key (else the treasury's; the devnet's treasury without either).
 */
function batchSettlementOf(chain: { settlementKey: `0x${string}` | undefined; treasuryKey: `0x${string}` | undefined }): Config['settings']['batchSettlement'] {
  const key = chain.settlementKey ?? chain.treasuryKey;
  const defaults = DEFAULT_SETTINGS.batchSettlement!;
  if (!key) return defaults;
  const address = privateKeyToAddress(key);
  return { ...defaults, receiverAuthorizer: { [PRODUCTION]: address, [TESTNET]: address } };
}

/**
 * The upto scheme's facilitator address: the account that settles upto payments, named in every
 * one the payer signs — the local facilitator's settlement key (else the treasury's; the devnet's
 * treasury without either).
 */
function uptoOf(chain: { settlementKey: `0x${string}` | undefined; treasuryKey: `0x${string}` | undefined }): Config['settings']['upto'] {
  const key = chain.settlementKey ?? chain.treasuryKey;
  if (!key) return DEFAULT_SETTINGS.upto;
  const address = privateKeyToAddress(key);
  return { facilitatorAddress: { [PRODUCTION]: address, [TESTNET]: address } };
}
