import type { Stores, UnitOfWork } from '../../../ports/unit-of-work.js';
import { CommitFeed, notingTokens } from '../kit/commit-feed.js';
import { MemoryAccessGrantStore } from './memory-access-grant-store.js';
import { MemoryDatabase, MemoryTx } from './memory-database.js';
import { MemoryEventLog } from './memory-event-log.js';
import { MemoryPaymentIdentifierStore } from './memory-payment-identifier-store.js';
import { MemoryPaymentStore } from './memory-payment-store.js';
import { MemoryDeliveryBatchStore } from './memory-delivery-batch-store.js';
import { MemoryRaiseStore } from './memory-raise-store.js';
import { MemoryDeliveryStore } from './memory-delivery-store.js';
import { MemoryOutboxStore } from './memory-outbox-store.js';
import { MemoryCustodyTransactionStore } from './memory-custody-transaction-store.js';
import { MemoryTokenPullStore } from './memory-token-pull-store.js';
import { MemoryPositionRepository } from './memory-position-repository.js';
import { MemoryProofNonceStore } from './memory-proof-nonce-store.js';
import { MemoryImageStore } from './memory-image-store.js';
import { MemoryAssetQuoteStore } from './memory-asset-quote-store.js';
import { MemoryQuoteStore } from './memory-quote-store.js';
import { MemoryTokenRepository } from './memory-token-repository.js';
import { MemoryTradeLedger } from './memory-trade-ledger.js';
import { MemoryCommentStore } from './memory-comment-store.js';
import { MemoryEarningsStore } from './memory-earnings-store.js';
import { MemoryTransferStore } from './memory-transfer-store.js';
import { MemoryCustodyIntentStore } from './memory-custody-intent-store.js';
import { MemoryOrderStore } from './memory-order-store.js';
import { MemoryChannelStore } from './memory-channel-store.js';
import { MemoryHeldAuthorizationStore } from './memory-held-authorization-store.js';
import { MemorySharedSettingsStore } from './memory-shared-settings-store.js';
import { MemoryChainIdentityStore } from './memory-chain-identity-store.js';

/**
 * The in-memory unit of work: transactions run one at a time (so a token is always "locked")
 * and roll back through their journal when the work throws. Its change feed is exact: the
 * memory database is this process's alone.
 */
export class MemoryUnitOfWork implements UnitOfWork {
  /** The tokens whose events commit, told as each unit of work commits. */
  readonly changeFeed = new CommitFeed();

  constructor(readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    const touched = new Set<string>();
    const result = await this.db.exclusive(async () => {
      const tx = new MemoryTx();
      try {
        return await work(this.stores(tx, touched));
      } catch (error) {
        tx.rollback();
        // Its writes were seen in place while it ran (reads here share the maps): whatever a
        // reader kept of them is untrue now (the row caches, decision 0057).
        this.changeFeed.emit(null);
        throw error;
      }
    });
    this.changeFeed.committed(touched);
    return result;
  }

  async run<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    const touched = new Set<string>();
    try {
      return await work(this.stores(null, touched));
    } finally {
      this.changeFeed.committed(touched); // without a transaction, each write stands as soon as it is made
    }
  }

  async close(): Promise<void> {}

  private stores(tx: MemoryTx | null, touched: Set<string>): Stores {
    return {
      tokens: new MemoryTokenRepository(this.db, tx),
      trades: new MemoryTradeLedger(this.db, tx),
      positions: new MemoryPositionRepository(this.db, tx),
      payments: new MemoryPaymentStore(this.db, tx),
      payouts: new MemoryOutboxStore(this.db, tx, { items: this.db.payouts, sources: this.db.payoutSources, idOf: (p) => p.payoutId }),
      quotes: new MemoryQuoteStore(this.db, tx),
      assetQuotes: new MemoryAssetQuoteStore(this.db, tx),
      events: notingTokens(new MemoryEventLog(this.db, tx), touched),
      paymentIds: new MemoryPaymentIdentifierStore(this.db, tx),
      proofNonces: new MemoryProofNonceStore(this.db, tx),
      accessGrants: new MemoryAccessGrantStore(this.db, tx),
      deployments: new MemoryOutboxStore(this.db, tx, { items: this.db.deployments, sources: this.db.deploymentSources, idOf: (d) => d.deploymentId }),
      deliveries: new MemoryDeliveryStore(this.db, tx),
      deliveryBatches: new MemoryDeliveryBatchStore(this.db, tx),
      pulls: new MemoryTokenPullStore(this.db, tx),
      swaps: new MemoryCustodyTransactionStore(this.db, tx, this.db.swaps),
      graduations: new MemoryOutboxStore(this.db, tx, { items: this.db.graduations, sources: this.db.graduationSources, idOf: (g) => g.graduationId }),
      transfers: new MemoryTransferStore(this.db, tx),
      earnings: new MemoryEarningsStore(this.db, tx),
      comments: new MemoryCommentStore(this.db, tx),
      intents: new MemoryCustodyIntentStore(this.db, tx),
      sharedSettings: new MemorySharedSettingsStore(this.db, tx),
      chainIdentities: new MemoryChainIdentityStore(this.db, tx),
      images: new MemoryImageStore(this.db, tx),
      raises: new MemoryRaiseStore(this.db, tx),
      orders: new MemoryOrderStore(this.db, tx),
      heldAuthorizations: new MemoryHeldAuthorizationStore(this.db, tx),
      channels: new MemoryChannelStore(this.db, tx),
    };
  }
}
