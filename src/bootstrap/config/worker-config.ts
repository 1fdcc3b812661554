/** Whether this process runs the workers, and the operator's say in their pace (the rest is TUNABLES). */
import { z } from 'zod';
import { TUNABLES, type Tunables } from '../../app/kit/tunables.js';
import { flag, type Parsed } from './env-values.js';

export const workerEnv = {
  WORKERS: flag.default(true),
  RECONCILER_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  INDEXER_CONFIRMATIONS: z.coerce.number().int().min(0).max(10_000).optional(),
  INDEXER_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(2_000),
  CHANNEL_CLAIM_IDLE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
};

export interface WorkerConfig {
  /** Run the workers (the outboxes, the reconciler, the transfer indexer, the earnings payer, the purgers) in this process. */
  workers: boolean;
  /** How long a payment is left to its own request before the reconciler takes it. */
  reconcilerGraceMs: number;
  /**
   * The transfer indexer (docs/decisions/0020): blocks it stays below the head (0 on the devnet,
   * 10 on real networks by default) and blocks per eth_getLogs call.
   */
  indexer: { confirmations: number; blockRange: number };
  /** A batch-settlement channel is claimed once it has taken no call for this long (docs/payments.md "Pay once, call many"). */
  channelClaimIdleMs: number;
  /** Named settings no environment variable reaches (TUNABLES). */
  tunables: Tunables;
}

export function readWorkers(e: Parsed<typeof workerEnv>, realChain: boolean): WorkerConfig {
  return {
    workers: e.WORKERS,
    reconcilerGraceMs: e.RECONCILER_GRACE_SECONDS * 1000,
    indexer: { confirmations: e.INDEXER_CONFIRMATIONS ?? (realChain ? 10 : 0), blockRange: e.INDEXER_BLOCK_RANGE },
    channelClaimIdleMs: e.CHANNEL_CLAIM_IDLE_SECONDS * 1000,
    tunables: TUNABLES,
  };
}
