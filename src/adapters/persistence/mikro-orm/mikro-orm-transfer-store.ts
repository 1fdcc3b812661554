import type { Network } from '../../../domain/network.js';
import type { BookedTransfer, TransferCursor, TransferStore } from '../../../ports/transfer-store.js';
import { big } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';
import { exactInt, Table } from './table.js';

const rowToCursor = (r: Row): TransferCursor => ({
  network: r.network as Network,
  blockNumber: BigInt(String(r.block_number)),
  blockHash: (r.block_hash as string | null) ?? null,
  headBlock: BigInt(String(r.head_block)),
  confirmations: Number(r.confirmations),
  updatedAt: ms(r.updated_at),
});

const TRANSFERS = new Table<BookedTransfer>(
  'token_transfers',
  {
    network: (t) => t.network,
    tx_hash: (t) => t.txHash.toLowerCase(),
    tx_log_index: (t) => t.txLogIndex,
    log_index: (t) => t.logIndex,
    block_number: (t) => t.blockNumber.toString(),
    block_hash: (t) => t.blockHash,
    token_id: (t) => t.tokenId,
    token: (t) => t.token,
    from_address: (t) => t.from,
    to_address: (t) => t.to,
    amount: exactInt((t) => t.amount),
    booked_at: (t) => t.bookedAt.getTime(),
  },
  (r) => ({
    network: r.network as Network,
    token: String(r.token),
    tokenId: String(r.token_id),
    from: String(r.from_address),
    to: String(r.to_address),
    amount: big(r.amount),
    blockNumber: BigInt(String(r.block_number)),
    blockHash: String(r.block_hash),
    txHash: String(r.tx_hash),
    logIndex: Number(r.log_index),
    txLogIndex: Number(r.tx_log_index),
    bookedAt: ms(r.booked_at),
  }),
);

export class MikroOrmTransferStore implements TransferStore {
  constructor(private readonly sql: Sql) {}

  async cursor(network: Network): Promise<TransferCursor | null> {
    const r = await this.sql.one(
      `select network, block_number, block_hash, head_block, confirmations, updated_at from transfer_cursors where network = ?`,
      [network],
    );
    return r ? rowToCursor(r) : null;
  }

  async advance(next: TransferCursor, from: bigint | null): Promise<boolean> {
    const values = [next.blockNumber.toString(), next.blockHash, next.headBlock.toString(), next.confirmations, next.updatedAt.getTime()];
    const rows =
      from === null
        ? await this.sql.all(
            `insert into transfer_cursors (network, block_number, block_hash, head_block, confirmations, updated_at) values (?, ?, ?, ?, ?, ?)
             on conflict (network) do nothing returning network`,
            [next.network, ...values],
          )
        : await this.sql.all(
            `update transfer_cursors set block_number = ?, block_hash = ?, head_block = ?, confirmations = ?, updated_at = ?
             where network = ? and block_number = ? returning network`,
            [...values, next.network, from.toString()],
          );
    return rows.length === 1;
  }

  async record(t: BookedTransfer): Promise<boolean> {
    const rows = await this.sql.all(`${TRANSFERS.insert} on conflict (network, tx_hash, tx_log_index) do nothing returning network`, TRANSFERS.values(t));
    return rows.length === 1;
  }

  async bookedSince(network: Network, fromBlock: bigint): Promise<BookedTransfer[]> {
    const rows = await this.sql.all(
      `select ${TRANSFERS.select(this.sql)} from token_transfers where network = ? and block_number >= ? order by block_number, log_index`,
      [network, fromBlock.toString()],
    );
    return rows.map(TRANSFERS.fromRow);
  }
}
