import type { Payout } from '../domain/payout.js';
import type { OutboxStore } from './outbox-store.js';

/** The payout outbox: rows written in the transaction of the trade or refund that owes them. */
export type PayoutStore = OutboxStore<Payout>;
