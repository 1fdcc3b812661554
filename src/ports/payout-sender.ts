import type { Network } from '../domain/network.js';
import type { Payout } from '../domain/payout.js';

export interface PreparedTransfer {
  txHash: string;
  rawTx: string;
}

/**
 * `confirmed`: mined and succeeded. `reverted`: mined and failed (nothing moved).
 * `pending`: known, not mined. `dropped`: unknown to the chain and its nonce is used by another
 * transaction, so it can never be mined.
 */
export type TransferStatus = 'confirmed' | 'reverted' | 'pending' | 'dropped';

/**
 * Moves USDC from the treasury to a wallet, in two steps so the transaction's identity is
 * recorded before it exists anywhere else: sign, record, then broadcast.
 */
export interface PayoutSender {
  prepare(payout: Payout): Promise<PreparedTransfer>;
  /** Idempotent: broadcasting a transaction the chain already knows is not an error. */
  broadcast(network: Network, rawTx: string): Promise<void>;
  status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus>;
}
