/** The outbox tables: payouts, deliveries, deployments, graduations — each one's own columns. */
import type { Delivery } from '../../../domain/delivery.js';
import type { Deployment } from '../../../domain/deployment.js';
import type { Graduation } from '../../../domain/graduation.js';
import type { Payout } from '../../../domain/payout.js';
import { big, num } from './exact-bigint-type.js';
import type { OutboxTable } from './mikro-orm-outbox-store.js';

export const PAYOUTS: OutboxTable<Payout> = {
  table: 'payouts',
  id: 'payout_id',
  columns: [
    { name: 'payout_id', value: (p) => p.payoutId },
    { name: 'wallet', value: (p) => p.wallet },
    { name: 'asset', value: (p) => p.asset },
    { name: 'amount', exact: true, value: (p) => num(p.amount) },
    { name: 'reason', value: (p) => p.reason },
  ],
  read: (r, o) => ({
    ...o,
    payoutId: String(r.payout_id),
    wallet: String(r.wallet),
    asset: r.asset as Payout['asset'],
    amount: big(r.amount),
    reason: r.reason as Payout['reason'],
  }),
};

export const DELIVERIES: OutboxTable<Delivery> = {
  table: 'deliveries',
  id: 'delivery_id',
  columns: [
    { name: 'delivery_id', value: (d) => d.deliveryId },
    { name: 'token_id', value: (d) => d.tokenId },
    { name: 'wallet', value: (d) => d.wallet },
    { name: 'amount', exact: true, value: (d) => num(d.amount) },
    { name: 'batch_id', value: (d) => d.batchId },
  ],
  read: (r, o) => ({
    ...o,
    deliveryId: String(r.delivery_id),
    tokenId: String(r.token_id),
    wallet: String(r.wallet),
    amount: big(r.amount),
    batchId: (r.batch_id as string | null) ?? null,
  }),
  // A delivery SENT in a batch is followed through its batch (docs/decisions/0035).
  dueWhere: 'batch_id is null',
};

export const DEPLOYMENTS: OutboxTable<Deployment> = {
  table: 'deployments',
  id: 'deployment_id',
  columns: [
    { name: 'deployment_id', value: (d) => d.deploymentId },
    { name: 'token_id', value: (d) => d.tokenId },
    { name: 'address', value: (d) => d.address },
    { name: 'block_number', exact: true, value: (d) => (d.blockNumber === null ? null : num(d.blockNumber)) },
  ],
  read: (r, o) => ({
    ...o,
    deploymentId: String(r.deployment_id),
    tokenId: String(r.token_id),
    address: String(r.address),
    blockNumber: r.block_number === null || r.block_number === undefined ? null : big(r.block_number),
  }),
};

export const GRADUATIONS: OutboxTable<Graduation> = {
  table: 'graduations',
  id: 'graduation_id',
  columns: [
    { name: 'graduation_id', value: (g) => g.graduationId },
    { name: 'token_id', value: (g) => g.tokenId },
    { name: 'step', value: (g) => g.step },
    { name: 'token_amount', exact: true, value: (g) => num(g.tokenAmount) },
    { name: 'usd_amount', exact: true, value: (g) => num(g.usdAmount) },
    { name: 'pair', value: (g) => g.pair },
  ],
  read: (r, o) => ({
    ...o,
    graduationId: String(r.graduation_id),
    tokenId: String(r.token_id),
    step: r.step as Graduation['step'],
    tokenAmount: big(r.token_amount),
    usdAmount: big(r.usd_amount),
    pair: (r.pair as string | null) ?? null,
  }),
};
