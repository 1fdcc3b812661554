import type { Network } from '../domain/network.js';
import type { TokenTransfer } from '../domain/transfer.js';

/** How far the transfer indexer has read a network (docs/decisions/0020). */
export interface TransferCursor {
  readonly network: Network;
  /** The last block whose transfers are booked; -1 before the first. */
  readonly blockNumber: bigint;
  /** Its hash, to notice a reorganisation below it; null when not known (a start before block 0). */
  readonly blockHash: string | null;
  /** The chain's head when the indexer last looked. */
  readonly headBlock: bigint;
  /** Blocks the indexer stays below the head (reorganisations shallower than this never reach the books). */
  readonly confirmations: number;
  readonly updatedAt: Date;
}

/** A transfer that changed positions, booked once. */
export interface BookedTransfer extends TokenTransfer {
  readonly tokenId: string;
  readonly bookedAt: Date;
}

/**
 * The transfer indexer's books: one cursor per network and every transfer it booked, unique on
 * (network, txHash, txLogIndex) so a log is never booked twice — by a pass that read it again
 * after a crash or a reorganisation, or by a second process.
 */
export interface TransferStore {
  cursor(network: Network): Promise<TransferCursor | null>;
  /**
   * Moves the cursor by compare-and-set: from no cursor (`from` null) or from the block it is at.
   * False when another pass moved it first.
   */
  advance(next: TransferCursor, from: bigint | null): Promise<boolean>;
  /** Books `t` unless it is booked already; true when this call booked it. */
  record(t: BookedTransfer): Promise<boolean>;
  /** Transfers booked from block `fromBlock` on, in chain order. */
  bookedSince(network: Network, fromBlock: bigint): Promise<BookedTransfer[]>;
}
