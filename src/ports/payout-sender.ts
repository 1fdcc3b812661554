import type { Network } from '../domain/network.js';
import type { Payout } from '../domain/payout.js';

export interface PreparedTransfer {
  txHash: string;
  rawTx: string;
}

/**
 * `confirmed`: mined and succeeded. `reverted`: mined and failed (nothing moved).
 * `pending`: not mined yet. `dropped`: never mined and its nonce is used by another transaction,
 * so it can never be mined.
 */
export type TransferStatus = 'confirmed' | 'reverted' | 'pending' | 'dropped';

/**
 * Moves USDC from the treasury to a wallet, in two steps so the transaction's identity is
 * recorded before it exists anywhere else: sign, record, then broadcast.
 */
export interface PayoutSender {
  prepare(payout: Payout): Promise<PreparedTransfer>;
  /** A prepared transfer will never be broadcast (its record failed): hand its nonce back. */
  release(network: Network): void;
  /** Idempotent: broadcasting a transaction the chain already knows is not an error. */
  broadcast(network: Network, rawTx: string): Promise<void>;
  status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus>;
  /**
   * The transfer has waited too long: fill any nonces below it that nothing will fill (so it can
   * be mined). Never makes a transfer pay twice. Returns how many fillers it sent.
   */
  unblock(network: Network, rawTx: string): Promise<number>;
}
