/**
 * Launched tokens' `Transfer` logs read with eth_getLogs (docs/decisions/0020): the token
 * addresses in batches (providers cap the addresses of one filter), the logs put in chain order,
 * and each log's place among its transaction's logs counted here — the one log index a
 * reorganisation that mines the transaction again in another block does not change.
 */
import { BlockNotFoundError, getAddress, parseAbiItem, type Hex } from 'viem';
import type { Network } from '../../../domain/network.js';
import type { TokenTransfer } from '../../../domain/transfer.js';
import type { TransferLogReader } from '../../../ports/transfer-log-reader.js';
import { publicClients } from '../../kit/evm/rpc-transport.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface ViemTransferLogReaderOptions {
  rpcUrls: Partial<Record<Network, string>>;
  /** Token addresses per eth_getLogs call. */
  addressesPerCall?: number;
}

export class ViemTransferLogReader implements TransferLogReader {

  private readonly client: ReturnType<typeof publicClients>;

  constructor(private readonly options: ViemTransferLogReaderOptions) {
    this.client = publicClients(options.rpcUrls);
  }

  supports(network: Network): boolean {
    return Boolean(this.options.rpcUrls[network]);
  }

  async head(network: Network): Promise<bigint> {
    return this.client(network).getBlockNumber({ cacheTime: 0 });
  }

  async blockHash(network: Network, blockNumber: bigint): Promise<string | null> {
    if (blockNumber < 0n) return null;
    try {
      return (await this.client(network).getBlock({ blockNumber })).hash;
    } catch (e) {
      if (e instanceof BlockNotFoundError) return null;
      throw e;
    }
  }

  async transfers(network: Network, tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]> {
    if (tokens.length === 0 || toBlock < fromBlock) return [];
    const client = this.client(network);
    const per = this.options.addressesPerCall ?? 500;
    const logs = [];
    for (let i = 0; i < tokens.length; i += per) {
      const address = tokens.slice(i, i + per).map((t) => getAddress(t)) as Hex[];
      logs.push(...(await client.getLogs({ address, event: TRANSFER, fromBlock, toBlock, strict: true })));
    }
    logs.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    const seen = new Map<string, number>();
    return logs.map((log) => {
      const txLogIndex = seen.get(log.transactionHash) ?? 0;
      seen.set(log.transactionHash, txLogIndex + 1);
      return {
        network,
        token: getAddress(log.address),
        from: getAddress(log.args.from),
        to: getAddress(log.args.to),
        amount: log.args.value,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        txLogIndex,
      };
    });
  }

}
