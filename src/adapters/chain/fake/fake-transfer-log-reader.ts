/**
 * An in-memory chain of `Transfer` logs: blocks with hashes, mined as tests (or the
 * FakeTokenIssuer's `onTransfer`) record transfers, reorganisations that replace the newest
 * blocks, and an RPC that can be taken offline — so the transfer indexer runs without a chain.
 */
import { getAddress, keccak256, toHex } from 'viem';
import type { Network } from '../../../domain/network.js';
import type { TokenTransfer } from '../../../domain/transfer.js';
import type { TransferLogReader } from '../../../ports/transfer-log-reader.js';

/** One transfer as a transaction makes it. */
export interface FakeTransfer {
  network: Network;
  token: string;
  from: string;
  to: string;
  amount: bigint;
  /** Default: a fresh hash (a transaction of its own). */
  txHash?: string;
}

interface Block {
  hash: string;
  logs: TokenTransfer[];
}

export class FakeTransferLogReader implements TransferLogReader {
  /** While offline every call throws, as with an unreachable RPC. */
  offline = false;
  private readonly chains = new Map<Network, Block[]>();
  private counter = 0;

  supports(_network: Network): boolean {
    return true;
  }

  /** Each transfer in a block of its own. */
  record(t: FakeTransfer): void {
    this.mine(t.network, [t]);
  }

  /** Mines one block holding `transfers` in order (each its own transaction unless they share a txHash); its number. */
  mine(network: Network, transfers: readonly Omit<FakeTransfer, 'network'>[] = []): bigint {
    const blocks = this.blocks(network);
    const number = BigInt(blocks.length);
    const hash = this.hash(`block:${network}:${number}`);
    const inTx = new Map<string, number>();
    const logs = transfers.map((t, logIndex) => {
      const txHash = t.txHash ?? this.hash(`tx:${network}`);
      const txLogIndex = inTx.get(txHash) ?? 0;
      inTx.set(txHash, txLogIndex + 1);
      return {
        network,
        token: getAddress(t.token),
        from: getAddress(t.from),
        to: getAddress(t.to),
        amount: t.amount,
        blockNumber: number,
        blockHash: hash,
        txHash,
        logIndex,
        txLogIndex,
      };
    });
    blocks.push({ hash, logs });
    return number;
  }

  /**
   * A reorganisation: the newest `depth` blocks are replaced by `blocks` (new hashes; the same
   * or other transactions, in other blocks), then empty blocks up to the old height — or, with
   * `shorter`, not (a devnet restored from an older state).
   */
  reorg(network: Network, depth: number, blocks: readonly (readonly Omit<FakeTransfer, 'network'>[])[] = [], shorter = false): void {
    const chain = this.blocks(network);
    const height = chain.length;
    chain.splice(height - depth, depth);
    for (const transfers of blocks) this.mine(network, transfers);
    while (!shorter && chain.length < height) this.mine(network);
  }

  /** Every log on the current chain, in order. */
  logs(network: Network): TokenTransfer[] {
    return this.blocks(network).flatMap((b) => b.logs);
  }

  async head(network: Network): Promise<bigint> {
    this.reachable();
    return BigInt(this.blocks(network).length - 1);
  }

  async blockHash(network: Network, blockNumber: bigint): Promise<string | null> {
    this.reachable();
    return blockNumber < 0n ? null : (this.blocks(network)[Number(blockNumber)]?.hash ?? null);
  }

  async transfers(network: Network, tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]> {
    this.reachable();
    // As a node answers a range past its head.
    if (toBlock >= fromBlock && toBlock > (await this.head(network))) throw new Error(`fake chain: block ${toBlock} is past the head`);
    const wanted = new Set(tokens.map((t) => t.toLowerCase()));
    return this.blocks(network)
      .slice(Number(fromBlock < 0n ? 0n : fromBlock), Number(toBlock) + 1)
      .flatMap((b) => b.logs)
      .filter((l) => wanted.has(l.token.toLowerCase()));
  }

  private blocks(network: Network): Block[] {
    let chain = this.chains.get(network);
    if (!chain) {
      chain = [{ hash: this.hash(`genesis:${network}`), logs: [] }];
      this.chains.set(network, chain);
    }
    return chain;
  }

  private hash(seed: string): string {
    this.counter += 1;
    return keccak256(toHex(`${seed}:${this.counter}`));
  }

  private reachable(): void {
    if (this.offline) throw new Error('fake chain: RPC unreachable');
  }
}
