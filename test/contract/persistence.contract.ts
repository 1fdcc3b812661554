/** Every persistence port's contract, for one storage technology. */
import { accessGrantStoreContract } from './access-grant-store.contract.js';
import { assetQuoteStoreContract } from './asset-quote-store.contract.js';
import { custodyTransactionStoreContract } from './custody-transaction-store.contract.js';
import { deliveryBatchStoreContract } from './delivery-batch-store.contract.js';
import { eventLogContract } from './event-log.contract.js';
import { graduationStoreContract } from './graduation-store.contract.js';
import { paymentIdentifierStoreContract } from './payment-identifier-store.contract.js';
import { paymentStoreContract } from './payment-store.contract.js';
import { payoutStoreContract } from './payout-store.contract.js';
import { positionRepositoryContract } from './position-repository.contract.js';
import { proofNonceStoreContract } from './proof-nonce-store.contract.js';
import { quoteStoreContract } from './quote-store.contract.js';
import { raiseStoreContract } from './raise-store.contract.js';
import { tokenRepositoryContract } from './token-repository.contract.js';
import { tradeLedgerContract } from './trade-ledger.contract.js';
import { transferStoreContract } from './transfer-store.contract.js';
import { earningsStoreContract } from './earnings-store.contract.js';
import type { UowFactory } from './uow-factory.js';
import { custodyIntentStoreContract } from './custody-intent-store.contract.js';
import { sharedSettingsStoreContract } from './shared-settings-store.contract.js';
import { orderStoreContract } from './order-store.contract.js';
import { unitOfWorkContract } from './unit-of-work.contract.js';

export function persistenceContracts(name: string, make: UowFactory) {
  tokenRepositoryContract(name, make);
  tradeLedgerContract(name, make);
  positionRepositoryContract(name, make);
  paymentStoreContract(name, make);
  payoutStoreContract(name, make);
  quoteStoreContract(name, make);
  assetQuoteStoreContract(name, make);
  eventLogContract(name, make);
  unitOfWorkContract(name, make);
  paymentIdentifierStoreContract(name, make);
  proofNonceStoreContract(name, make);
  accessGrantStoreContract(name, make);
  graduationStoreContract(name, make);
  transferStoreContract(name, make);
  custodyTransactionStoreContract(name, make);
  earningsStoreContract(name, make);
  custodyIntentStoreContract(name, make);
  sharedSettingsStoreContract(name, make);
  deliveryBatchStoreContract(name, make);
  raiseStoreContract(name, make);
  orderStoreContract(name, make);
}
