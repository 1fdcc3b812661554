import type { Delivery } from '../domain/delivery.js';
import type { OutboxStore } from './outbox-store.js';

/** The delivery outbox: tokens owed to buyers, written in the transaction of the buy. */
export type DeliveryStore = OutboxStore<Delivery>;
