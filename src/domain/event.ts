import type { Network } from './network.js';

export type EventType =
  | 'token.created'
  | 'trade.executed'
  | 'token.graduated'
  | 'payout.sent'
  | 'payout.confirmed'
  | 'payout.failed'
  | 'token.deployed'
  | 'token.deployment_failed'
  | 'delivery.sent'
  | 'delivery.confirmed'
  | 'delivery.failed'
  | 'token.pool_created'
  | 'token.pool_failed'
  | 'position.transferred'
  | 'earnings.accrued'
  | 'comment.posted'
  | 'comment.hidden'
  | 'token.image_changed'
  | 'token.splits_changed'
  | 'vesting.released'
  | 'raise.pledged'
  | 'raise.pledge_cancelled'
  | 'raise.filled'
  | 'raise.failed'
  | 'order.placed'
  | 'order.executed'
  | 'order.failed'
  | 'order.cancelled'
  | 'order.expired';

/** An event as written to the outbox, in the transaction of the change it describes (docs/api.md "Events"). */
export interface NewEvent {
  readonly type: EventType;
  readonly network: Network;
  readonly tokenId: string | null;
  readonly data: Record<string, unknown>;
  readonly createdAt: Date;
}

export interface StoredEvent extends NewEvent {
  /** Monotonically increasing, without gaps among committed events. */
  readonly id: number;
}
