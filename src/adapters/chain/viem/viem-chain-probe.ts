/**
 * The ChainProbe port over JSON-RPC: `eth_chainId` on each network's RPC, once, with a short
 * timeout and no retry (a probe reports; the callers decide what an outage means). A node that
 * answers with another chain id is as good as down: nothing sent there would reach the network.
 * Its identity (docs/decisions/0066) is three reads: the chain id, block 0's hash, the factory's code.
 */
import { createPublicClient, getAddress, keccak256, type PublicClient } from 'viem';
import type { ChainIdentity } from '../../../domain/chain-identity.js';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { ChainProbe } from '../../../ports/chain-probe.js';
import { rpcTransport } from '../../kit/evm/rpc-transport.js';

export interface ViemChainProbeOptions {
  /** The RPC per network that settlements and custody's transactions go through. */
  rpcUrls: Partial<Record<Network, string>>;
  /** How long an answer may take (default 2 s). */
  timeoutMs?: number;
}

export class ViemChainProbe implements ChainProbe {
  private readonly clients = new Map<Network, PublicClient>();

  constructor(private readonly options: ViemChainProbeOptions) {}

  async probe(network: Network): Promise<'ok' | 'down'> {
    try {
      return (await this.client(network).getChainId()) === NETWORKS[network].chainId ? 'ok' : 'down';
    } catch {
      return 'down';
    }
  }

  async identity(network: Network, factory: string): Promise<ChainIdentity> {
    const client = this.client(network);
    const [chainId, genesis, code] = await Promise.all([
      client.getChainId(),
      client.getBlock({ blockNumber: 0n, includeTransactions: false }),
      client.getCode({ address: getAddress(factory) }),
    ]);
    if (!genesis.hash) throw new Error(`${network}: the RPC answered no hash for block 0`);
    return {
      network,
      chainId,
      genesisHash: genesis.hash.toLowerCase(),
      factory: factory.toLowerCase(),
      factoryCodeHash: code && code !== '0x' ? keccak256(code).toLowerCase() : null,
    };
  }

  private client(network: Network): PublicClient {
    let c = this.clients.get(network);
    if (!c) {
      const url = this.options.rpcUrls[network];
      if (!url) throw new Error(`no RPC configured for ${network}`);
      c = createPublicClient({ transport: rpcTransport(url, { timeout: this.options.timeoutMs ?? 2_000, retryCount: 0 }) }) as PublicClient;
      this.clients.set(network, c);
    }
    return c;
  }
}
