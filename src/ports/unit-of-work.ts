import type { AccessGrantStore } from './access-grant-store.js';
import type { ChangeFeed } from './change-feed.js';
import type { AssetQuoteStore } from './asset-quote-store.js';
import type { DeliveryStore } from './delivery-store.js';
import type { DeploymentStore } from './deployment-store.js';
import type { EarningsStore } from './earnings-store.js';
import type { EventLog } from './event-log.js';
import type { GraduationStore } from './graduation-store.js';
import type { PaymentIdentifierStore } from './payment-identifier-store.js';
import type { PaymentStore } from './payment-store.js';
import type { PayoutStore } from './payout-store.js';
import type { PositionRepository } from './position-repository.js';
import type { ProofNonceStore } from './proof-nonce-store.js';
import type { QuoteStore } from './quote-store.js';
import type { TokenPullStore } from './token-pull-store.js';
import type { TokenRepository } from './token-repository.js';
import type { TradeLedger } from './trade-ledger.js';
import type { TransferStore } from './transfer-store.js';

/** Every store, bound to one transaction (or to none, for reads). */
export interface Stores {
  tokens: TokenRepository;
  trades: TradeLedger;
  positions: PositionRepository;
  payments: PaymentStore;
  payouts: PayoutStore;
  quotes: QuoteStore;
  /** Asset prices held for a 402's paid retry (SPEC §15). */
  assetQuotes: AssetQuoteStore;
  events: EventLog;
  /** x402 extensions (#17): client payment ids, spent Sign-In-With-X nonces, paid-for access. */
  paymentIds: PaymentIdentifierStore;
  proofNonces: ProofNonceStore;
  accessGrants: AccessGrantStore;
  /** Tokens on chain (SPEC §14): deployments, deliveries to buyers, pulls from sellers. */
  deployments: DeploymentStore;
  deliveries: DeliveryStore;
  pulls: TokenPullStore;
  /** Graduation → DEX pool (SPEC §14): the steps that seed each graduated token's pool. */
  graduations: GraduationStore;
  /** Tokens moved on chain by their holders (docs/decisions/0020): the indexer's cursors and bookings. */
  transfers: TransferStore;
  /** Fee shares earned by creators and referrers, and which payout paid them (docs/api.md "Fees and earnings"). */
  earnings: EarningsStore;
}

/**
 * One unit of work: a trade, its position update, its payment transition and its event commit
 * together or not at all. Nothing slow (no network call) belongs inside `transaction`.
 */
export interface UnitOfWork {
  /**
   * The tokens whose events commit, told to every process that shares the store — when the
   * store can (PostgreSQL, memory); null or absent when it cannot (SQLite: readers ask instead).
   */
  readonly changeFeed?: ChangeFeed | null;
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /** Reads (and single-statement writes) outside a transaction, on a fresh context. */
  read<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
