import type { Graduation } from '../domain/graduation.js';
import type { OutboxStore } from './outbox-store.js';

/** The graduation outbox: one item per step per token (sourceId `${tokenId}:${step}`). */
export type GraduationStore = OutboxStore<Graduation>;
