/** The stores of one unit of work, bound to its connection: each reads and writes its own tables. */
import type { Stores } from '../../../ports/unit-of-work.js';
import { notingTokens } from '../kit/commit-feed.js';
import { MikroOrmCommentStore } from './mikro-orm-comment-store.js';
import { MikroOrmCustodyIntentStore } from './mikro-orm-custody-intent-store.js';
import { MikroOrmOrderStore } from './mikro-orm-order-store.js';
import { MikroOrmChannelStore } from './mikro-orm-channel-store.js';
import { MikroOrmHeldAuthorizationStore } from './mikro-orm-held-authorization-store.js';
import { MikroOrmSharedSettingsStore } from './mikro-orm-shared-settings-store.js';
import { MikroOrmChainIdentityStore } from './mikro-orm-chain-identity-store.js';
import { MikroOrmEarningsStore } from './mikro-orm-earnings-store.js';
import { MikroOrmAccessGrantStore } from './mikro-orm-access-grant-store.js';
import { MikroOrmEventLog } from './mikro-orm-event-log.js';
import { MikroOrmPaymentIdentifierStore } from './mikro-orm-payment-identifier-store.js';
import { MikroOrmPaymentStore } from './mikro-orm-payment-store.js';
import { MikroOrmOutboxStore } from './mikro-orm-outbox-store.js';
import { MikroOrmCustodyTransactionStore } from './mikro-orm-custody-transaction-store.js';
import { MikroOrmTokenPullStore } from './mikro-orm-token-pull-store.js';
import { DEPLOYMENTS, GRADUATIONS, PAYOUTS } from './outbox-tables.js';
import { MikroOrmDeliveryBatchStore } from './mikro-orm-delivery-batch-store.js';
import { MikroOrmDeliveryStore } from './mikro-orm-delivery-store.js';
import { MikroOrmPositionRepository, PrefetchedPositions } from './mikro-orm-position-repository.js';
import { MikroOrmProofNonceStore } from './mikro-orm-proof-nonce-store.js';
import { MikroOrmImageStore } from './mikro-orm-image-store.js';
import { MikroOrmAssetQuoteStore } from './mikro-orm-asset-quote-store.js';
import { MikroOrmQuoteStore } from './mikro-orm-quote-store.js';
import { MikroOrmRaiseStore } from './mikro-orm-raise-store.js';
import { MikroOrmTokenRepository } from './mikro-orm-token-repository.js';
import { MikroOrmTradeLedger } from './mikro-orm-trade-ledger.js';
import { MikroOrmTransferStore } from './mikro-orm-transfer-store.js';
import type { Sql } from './sql.js';

/** The stores on one connection; `touched` collects the tokens whose events they append. */
export function stores(sql: Sql, touched: Set<string>): Stores {
  // A position read with its token's lock, for the positions store to answer (SQLite).
  const prefetched = new PrefetchedPositions();
  return {
    tokens: new MikroOrmTokenRepository(sql, prefetched),
    trades: new MikroOrmTradeLedger(sql),
    positions: new MikroOrmPositionRepository(sql, prefetched),
    payments: new MikroOrmPaymentStore(sql),
    payouts: new MikroOrmOutboxStore(sql, PAYOUTS),
    quotes: new MikroOrmQuoteStore(sql),
    assetQuotes: new MikroOrmAssetQuoteStore(sql),
    events: notingTokens(new MikroOrmEventLog(sql), touched),
    paymentIds: new MikroOrmPaymentIdentifierStore(sql),
    proofNonces: new MikroOrmProofNonceStore(sql),
    accessGrants: new MikroOrmAccessGrantStore(sql),
    deployments: new MikroOrmOutboxStore(sql, DEPLOYMENTS),
    deliveries: new MikroOrmDeliveryStore(sql),
    deliveryBatches: new MikroOrmDeliveryBatchStore(sql),
    graduations: new MikroOrmOutboxStore(sql, GRADUATIONS),
    pulls: new MikroOrmTokenPullStore(sql),
    swaps: new MikroOrmCustodyTransactionStore(sql, 'pool_swaps'),
    transfers: new MikroOrmTransferStore(sql),
    earnings: new MikroOrmEarningsStore(sql),
    intents: new MikroOrmCustodyIntentStore(sql),
    sharedSettings: new MikroOrmSharedSettingsStore(sql),
    chainIdentities: new MikroOrmChainIdentityStore(sql),
    comments: new MikroOrmCommentStore(sql),
    images: new MikroOrmImageStore(sql),
    raises: new MikroOrmRaiseStore(sql),
    orders: new MikroOrmOrderStore(sql),
    heldAuthorizations: new MikroOrmHeldAuthorizationStore(sql),
    channels: new MikroOrmChannelStore(sql),
  };
}
