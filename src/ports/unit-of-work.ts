import type { AccessGrantStore } from './access-grant-store.js';
import type { ChainIdentityStore } from './chain-identity-store.js';
import type { ChangeFeed } from './change-feed.js';
import type { ChannelStore } from './channel-store.js';
import type { CommentStore } from './comment-store.js';
import type { CustodyIntentStore } from './custody-intent-store.js';
import type { AssetQuoteStore } from './asset-quote-store.js';
import type { DeliveryBatchStore } from './delivery-batch-store.js';
import type { DeliveryStore } from './delivery-store.js';
import type { DeploymentStore } from './deployment-store.js';
import type { EarningsStore } from './earnings-store.js';
import type { EventLog } from './event-log.js';
import type { GraduationStore } from './graduation-store.js';
import type { HeldAuthorizationStore } from './held-authorization-store.js';
import type { ImageStore } from './image-store.js';
import type { OrderStore } from './order-store.js';
import type { PaymentIdentifierStore } from './payment-identifier-store.js';
import type { PaymentStore } from './payment-store.js';
import type { PayoutStore } from './payout-store.js';
import type { PoolSwapStore } from './pool-swap-store.js';
import type { PositionRepository } from './position-repository.js';
import type { ProofNonceStore } from './proof-nonce-store.js';
import type { QuoteStore } from './quote-store.js';
import type { RaiseStore } from './raise-store.js';
import type { SharedSettingsStore } from './shared-settings-store.js';
import type { SignerLocks } from './signer-locks.js';
import type { TokenPullStore } from './token-pull-store.js';
import type { TokenRepository } from './token-repository.js';
import type { TradeLedger } from './trade-ledger.js';
import type { TransferStore } from './transfer-store.js';

/** Every store, bound to one transaction (or to none: `run`). */
export interface Stores {
  tokens: TokenRepository;
  trades: TradeLedger;
  positions: PositionRepository;
  payments: PaymentStore;
  payouts: PayoutStore;
  quotes: QuoteStore;
  /** Asset prices held for a 402's paid retry (docs/payments.md "Payment assets"). */
  assetQuotes: AssetQuoteStore;
  events: EventLog;
  /** x402 extensions (docs/api.md "x402 extensions"): client payment ids, spent Sign-In-With-X nonces, paid-for access. */
  paymentIds: PaymentIdentifierStore;
  proofNonces: ProofNonceStore;
  accessGrants: AccessGrantStore;
  /** Tokens on chain (docs/api.md "Tokens on chain"): deployments, deliveries to buyers, pulls from sellers. */
  deployments: DeploymentStore;
  deliveries: DeliveryStore;
  /** Deliveries sent together in one custody transaction (docs/decisions/0035). */
  deliveryBatches: DeliveryBatchStore;
  pulls: TokenPullStore;
  /** Custody's swaps on graduated tokens' pools, one per paid trade (docs/api.md "Graduation"). */
  swaps: PoolSwapStore;
  /** Graduation → DEX pool (docs/api.md "Graduation"): the steps that seed each graduated token's pool. */
  graduations: GraduationStore;
  /** Tokens moved on chain by their holders (docs/decisions/0020): the indexer's cursors and bookings. */
  transfers: TransferStore;
  /** Fee shares earned by creators and referrers, and which payout paid them (docs/api.md "Fees and earnings"). */
  earnings: EarningsStore;
  /** Custody transactions asked of the process that signs for custody (docs/decisions/0031). */
  intents: CustodyIntentStore;
  /** What every process on this database must agree on (docs/decisions/0032). */
  sharedSettings: SharedSettingsStore;
  /** Which chain each network's books were kept on (docs/decisions/0066). */
  chainIdentities: ChainIdentityStore;
  /** Comments on tokens, paid for by their authors, hidden by the tokens' creators (docs/api.md "Comments"). */
  comments: CommentStore;
  /** Token images, by the sha256 of their bytes (docs/decisions/0049). */
  images: ImageStore;
  /** Fair launches' raises and their pledges (docs/api.md "Fair launches"). */
  raises: RaiseStore;
  /** Orders that wait for a price (docs/api.md "Orders"): limit buys, stop-losses, take-profits. */
  orders: OrderStore;
  /** Who holds each signed authorization an order or a pledge carries: at most one live holder (docs/decisions/0067). */
  heldAuthorizations: HeldAuthorizationStore;
  /** Payment channels of the x402 batch-settlement scheme (docs/payments.md "Pay once, call many"). */
  channels: ChannelStore;
}

/**
 * One unit of work: a trade, its position update, its payment transition and its event commit
 * together or not at all. Nothing slow (no network call) belongs inside `transaction`.
 */
export interface UnitOfWork {
  /**
   * The tokens whose events commit, told to every process that shares the store (PostgreSQL by
   * LISTEN/NOTIFY, a SQLite file by reading its event log, memory exactly); null or absent when
   * it cannot (an in-memory SQLite database, or a store opened without one).
   */
  readonly changeFeed?: ChangeFeed | null;
  /**
   * One signer per key among the processes sharing this store (PostgreSQL advisory locks); null
   * or absent when only one process can use it (SQLite, memory): that process is every key's signer.
   */
  readonly signerLocks?: SignerLocks | null;
  /** The atomic unit: every write of `work` commits together, or none does. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /**
   * `work` outside a transaction, on a fresh context: its reads, and its single-statement writes
   * (a claim, a compare-and-set, a held quote), each of which commits on its own.
   */
  run<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
