import type { Network } from '../../../domain/network.js';
import type { BookedTransfer, TransferCursor, TransferStore } from '../../../ports/transfer-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const key = (t: Pick<BookedTransfer, 'network' | 'txHash' | 'txLogIndex'>) => `${t.network}|${t.txHash.toLowerCase()}|${t.txLogIndex}`;

export class MemoryTransferStore implements TransferStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async cursor(network: Network): Promise<TransferCursor | null> {
    return this.db.transferCursors.get(network) ?? null;
  }

  async advance(next: TransferCursor, from: bigint | null): Promise<boolean> {
    const current = this.db.transferCursors.get(next.network) ?? null;
    if ((current?.blockNumber ?? null) !== from) return false;
    this.db.set(this.tx, this.db.transferCursors, next.network, next);
    return true;
  }

  async record(t: BookedTransfer): Promise<boolean> {
    if (this.db.bookedTransfers.has(key(t))) return false;
    this.db.set(this.tx, this.db.bookedTransfers, key(t), t);
    return true;
  }

  async bookedSince(network: Network, fromBlock: bigint): Promise<BookedTransfer[]> {
    return [...this.db.bookedTransfers.values()]
      .filter((t) => t.network === network && t.blockNumber >= fromBlock)
      .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
  }
}
