/**
 * How a caller of `startService` (tests, benchmarks) changes what the root builds: ports given
 * rather than built from the configuration, hooks into the work, and shorter waits. Everything
 * else comes from the configuration.
 */
import type { ApplicationDeps } from '../app/application.js';
import type { WorkerSchedulerDeps } from '../app/workers/worker-scheduler.js';
import type { AuthorizationReader } from '../ports/authorization-reader.js';
import type { ChainProbe } from '../ports/chain-probe.js';
import type { DexRouter } from '../ports/dex-router.js';
import type { ImageProcessor } from '../ports/image-processor.js';
import type { PayoutSender } from '../ports/payout-sender.js';
import type { SignerLocks } from '../ports/signer-locks.js';
import type { TokenIssuer } from '../ports/token-issuer.js';
import type { TransferLogReader } from '../ports/transfer-log-reader.js';

/**
 * The ports the root builds. One given is used as it is; one that holds a resource (the store,
 * the rate limiter) is the service's once given, and closed with it.
 */
export interface ServicePorts
  extends Pick<
    ApplicationDeps,
    'uow' | 'clock' | 'ids' | 'logger' | 'metrics' | 'facilitator' | 'detector' | 'tokenIssuer' | 'walletProofs' | 'receiptSigner' | 'usdQuotes' | 'priceBoard' | 'rateLimiter' | 'availability' | 'tradeQuoter' | 'signatures'
  > {
  poolQuoter: NonNullable<ApplicationDeps['poolQuoter']>;
  tokenViews: NonNullable<ApplicationDeps['tokenViews']>;
  payoutSender: PayoutSender;
  authorizations: AuthorizationReader;
  /** Uniswap v2 (docs/operations.md, "Graduation pools"); default: the devnet's, or UNISWAP_V2_* on real networks. */
  dexRouter: DexRouter;
  /** Where the transfer indexer reads launched tokens' Transfer logs; default: the chain's RPCs. */
  transferLogs: TransferLogReader;
  /** What tells whether each network's chain answers (default: its RPC; null: nothing to probe, every network answers). */
  chainProbe: ChainProbe | null;
  /** One signer per key (default: the store's — PostgreSQL advisory locks — or this process alone). */
  signerLocks: SignerLocks;
  /** Decodes and re-encodes token images (default: sharp). */
  imageProcessor: ImageProcessor;
}

/** Seams into the work, for fault-injection tests: the payment pipeline's, and each worker's by name. */
export type ServiceHooks = NonNullable<ApplicationDeps['hooks']> & NonNullable<WorkerSchedulerDeps['hooks']>;

export interface ServiceOptions {
  ports?: Partial<ServicePorts>;
  hooks?: ServiceHooks;
  /** Wraps the token issuer the service builds or is given (an RPC that goes down). */
  wrapTokenIssuer?: (issuer: TokenIssuer) => TokenIssuer;
  /** Shorter waits than the configuration's: a retried payment's for its answer, the workers' pause between passes. */
  timing?: { replayWaitMs?: number; workerIntervalMs?: number };
}
