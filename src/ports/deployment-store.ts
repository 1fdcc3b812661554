import type { Deployment } from '../domain/deployment.js';
import type { OutboxStore } from './outbox-store.js';

/** The deployment outbox: one per token (its sourceId is the tokenId), written with the token. */
export type DeploymentStore = OutboxStore<Deployment>;
