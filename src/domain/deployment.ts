/**
 * A token's deployment: the LaunchFactory call that puts the contract at the address announced
 * when the token was created (docs/api.md "Tokens on chain"). Queued in the create's own transaction, sent through
 * the outbox; the token carries a summary of it.
 */
import type { Network } from './network.js';
import { newOutboxFields, type OutboxFields } from './outbox.js';

export interface Deployment extends OutboxFields {
  readonly deploymentId: string;
  readonly tokenId: string;
  /** Where the contract will be (CREATE2: known in advance). */
  readonly address: string;
  /** The block that mined it, once confirmed. */
  readonly blockNumber: bigint | null;
}

export type DeploymentState = 'PENDING' | 'DEPLOYED' | 'FAILED';

/** What the token shows of its deployment. */
export interface DeploymentSummary {
  readonly state: DeploymentState;
  readonly txHash: string | null;
  readonly blockNumber: bigint | null;
}

export const PENDING_DEPLOYMENT: DeploymentSummary = { state: 'PENDING', txHash: null, blockNumber: null };

export function newDeployment(args: { deploymentId: string; network: Network; tokenId: string; address: string; now: Date }): Deployment {
  return {
    ...newOutboxFields(args.network, args.tokenId, args.now),
    deploymentId: args.deploymentId,
    tokenId: args.tokenId,
    address: args.address,
    blockNumber: null,
  };
}
