import type { Network } from '../domain/network.js';
import type { TokenTransfer } from '../domain/transfer.js';

/**
 * Reads launched tokens' ERC-20 `Transfer` logs from a network (docs/decisions/0020), for the
 * transfer indexer. Block numbers are the chain's; addresses come back checksummed.
 */
export interface TransferLogReader {
  /** Whether this network can be read (a network without an RPC cannot). */
  supports(network: Network): boolean;
  /** The newest block number. */
  head(network: Network): Promise<bigint>;
  /** The hash of block `blockNumber`, or null when the chain has no such block (yet, or any more). */
  blockHash(network: Network, blockNumber: bigint): Promise<string | null>;
  /**
   * Every `Transfer` log of the contracts at `tokens` in blocks `fromBlock`..`toBlock`
   * (inclusive; `toBlock` at most the head), in chain order (block, then log index). No tokens,
   * or `fromBlock` past `toBlock`: no logs.
   */
  transfers(network: Network, tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]>;
}
