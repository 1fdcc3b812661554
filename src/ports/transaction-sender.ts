import type { Network } from '../domain/network.js';

/**
 * `confirmed`: mined, succeeded, and its receipt shows what it was signed to do (the Transfer of
 * the token, amount and recipient; the deployed token's mint). `reverted`: mined and failed
 * (nothing moved). `pending`: not mined yet. `dropped`: never mined and its nonce is used by
 * another transaction, so it can never be mined. `no-effect`: mined as a success that did not do
 * it — a call to an address without code succeeds and emits nothing: the chain is not the one
 * the transaction was meant for (docs/decisions/0066). Never to be taken as done, nor sent again.
 */
export type TransferStatus = 'confirmed' | 'reverted' | 'pending' | 'dropped' | 'no-effect';

export interface PreparedTransfer {
  txHash: string;
  rawTx: string;
}

/**
 * Sends transactions the service signed itself, in the outbox's steps: whoever prepared one
 * records it, then it is broadcast (as often as needed) and followed to a receipt.
 */
export interface TransactionSender {
  /** A prepared transaction will never be broadcast (its record failed): hand its nonce back. */
  release(network: Network): void;
  /** Idempotent: broadcasting a transaction the chain already knows is not an error. */
  broadcast(network: Network, rawTx: string): Promise<void>;
  status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus>;
  /**
   * The transaction has waited too long: fill any nonces below it that nothing will fill (so it
   * can be mined). Never makes anything be sent twice. Returns how many fillers it sent.
   */
  unblock(network: Network, rawTx: string): Promise<number>;
}
