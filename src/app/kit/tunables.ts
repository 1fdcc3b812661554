/**
 * The workers' pace and limits, and how long a retried payment waits (docs/architecture.md,
 * "Workers"): named settings with these defaults, deliberately not read from the environment —
 * docs/operations.md promises their values, and nothing about a deployment calls for others.
 */
export interface Tunables {
  /** A request carrying a payment another request is still applying waits this long for its answer, then gets 202. */
  replayWaitMs: number;
  workers: {
    /** Pause between the end of one pass of every worker and the start of the next. */
    intervalMs: number;
    /** The outbox engine (payouts, deployments, deliveries, graduations). */
    outbox: {
      /** Sends an item gets before it is FAILED for an operator. */
      maxAttempts: number;
      /** Delay before the n-th retry: backoffBaseMs · 2^(n−1), at most backoffMaxMs. */
      backoffBaseMs: number;
      backoffMaxMs: number;
      /** How long a SENT item waits before its status is read again. */
      confirmPollMs: number;
      /** A SENT item still not mined after this long gets the nonce gap below it filled. */
      stuckAfterMs: number;
    };
    /** The reconciler refunds a settled payment whose operation still fails this long after settlement. */
    refundAfterMs: number;
    /** Quotes are purged this long after they expire (a late reconciler still finds them), at most every quotePurgeIntervalMs once no backlog is left. */
    quoteRetentionMs: number;
    quotePurgeIntervalMs: number;
    /** Rows a purge deletes per pass (quotes, spent Sign-In-With-X nonces, expired access grants). */
    purgeBatch: number;
    /** Most deliveries one custody transaction carries (docs/decisions/0035); below 2, each is sent alone. */
    deliveryBatchMax: number;
  };
}

export const TUNABLES: Tunables = {
  replayWaitMs: 10_000,
  workers: {
    intervalMs: 1_000,
    outbox: { maxAttempts: 5, backoffBaseMs: 5_000, backoffMaxMs: 300_000, confirmPollMs: 1_000, stuckAfterMs: 60_000 },
    refundAfterMs: 15 * 60_000,
    quoteRetentionMs: 10 * 60_000,
    quotePurgeIntervalMs: 60_000,
    purgeBatch: 1_000,
    deliveryBatchMax: 100,
  },
};
