/**
 * The committed migrations, in the order they run (MikroORM's migrator takes this list; nothing
 * is discovered from the file system, so the compiled build runs the same ones). A new migration
 * is one file here and one line below.
 */
import { Migration0001Initial } from './migration-0001-initial.js';
import { Migration0002PaymentSignature } from './migration-0002-payment-signature.js';
import { Migration0003X402Extensions } from './migration-0003-x402-extensions.js';
import { Migration0004OnChainTokens } from './migration-0004-on-chain-tokens.js';
import { Migration0005PaymentAssets } from './migration-0005-payment-assets.js';
import { Migration0007GraduationPool } from './migration-0007-graduation-pool.js';
import { Migration0008EventNotifications } from './migration-0008-event-notifications.js';
import { Migration0009PaymentResourceUrl } from './migration-0009-payment-resource-url.js';
import { Migration0010TokenTransfers } from './migration-0010-token-transfers.js';
import { Migration0011PoolSwaps } from './migration-0011-pool-swaps.js';
import { Migration0012TokenLinksAndReferrer } from './migration-0012-token-links-and-referrer.js';
import { Migration0013Earnings } from './migration-0013-earnings.js';
import { Migration0014CustodyIntentsAndSharedSettings } from './migration-0014-custody-intents-and-shared-settings.js';
import { Migration0015DeliveryBatches } from './migration-0015-delivery-batches.js';
import { Migration0016Orders } from './migration-0016-orders.js';
import { Migration0017FairLaunches } from './migration-0017-fair-launches.js';
import { Migration0018TokenImages } from './migration-0018-token-images.js';
import { Migration0019Comments } from './migration-0019-comments.js';
import { Migration0020BuySwapTerms } from './migration-0020-buy-swap-terms.js';
import { Migration0021RecordedRefusals } from './migration-0021-recorded-refusals.js';
import { Migration0022ChainIdentities } from './migration-0022-chain-identities.js';
import { Migration0023HeldAuthorizations } from './migration-0023-held-authorizations.js';
import { Migration0025HiddenCommentsWithheld } from './migration-0025-hidden-comments-withheld.js';
import { Migration0026CreatorEconomy } from './migration-0026-creator-economy.js';
import { Migration0028Channels } from './migration-0028-channels.js';
import { Migration0029PaymentSchemes } from './migration-0029-payment-schemes.js';

export const MIGRATIONS = [
  { name: 'Migration0001Initial', class: Migration0001Initial },
  { name: 'Migration0002PaymentSignature', class: Migration0002PaymentSignature },
  { name: 'Migration0003X402Extensions', class: Migration0003X402Extensions },
  { name: 'Migration0004OnChainTokens', class: Migration0004OnChainTokens },
  { name: 'Migration0005PaymentAssets', class: Migration0005PaymentAssets },
  { name: 'Migration0007GraduationPool', class: Migration0007GraduationPool },
  { name: 'Migration0008EventNotifications', class: Migration0008EventNotifications },
  { name: 'Migration0009PaymentResourceUrl', class: Migration0009PaymentResourceUrl },
  { name: 'Migration0010TokenTransfers', class: Migration0010TokenTransfers },
  { name: 'Migration0011PoolSwaps', class: Migration0011PoolSwaps },
  { name: 'Migration0012TokenLinksAndReferrer', class: Migration0012TokenLinksAndReferrer },
  { name: 'Migration0013Earnings', class: Migration0013Earnings },
  { name: 'Migration0014CustodyIntentsAndSharedSettings', class: Migration0014CustodyIntentsAndSharedSettings },
  { name: 'Migration0015DeliveryBatches', class: Migration0015DeliveryBatches },
  { name: 'Migration0016Orders', class: Migration0016Orders },
  { name: 'Migration0017FairLaunches', class: Migration0017FairLaunches },
  { name: 'Migration0018TokenImages', class: Migration0018TokenImages },
  { name: 'Migration0019Comments', class: Migration0019Comments },
  { name: 'Migration0020BuySwapTerms', class: Migration0020BuySwapTerms },
  { name: 'Migration0021RecordedRefusals', class: Migration0021RecordedRefusals },
  { name: 'Migration0022ChainIdentities', class: Migration0022ChainIdentities },
  { name: 'Migration0023HeldAuthorizations', class: Migration0023HeldAuthorizations },
  { name: 'Migration0025HiddenCommentsWithheld', class: Migration0025HiddenCommentsWithheld },
  { name: 'Migration0026CreatorEconomy', class: Migration0026CreatorEconomy },
  { name: 'Migration0028Channels', class: Migration0028Channels },
  { name: 'Migration0029PaymentSchemes', class: Migration0029PaymentSchemes },
];
