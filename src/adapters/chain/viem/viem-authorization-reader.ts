import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { AuthorizationOnChain, AuthorizationReader } from '../../../ports/authorization-reader.js';

const AUTHORIZATION_STATE = [
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

/** authorizationState(authorizer, nonce) on the USDC contract, and the AuthorizationUsed log for the hash. */
export class ViemAuthorizationReader implements AuthorizationReader {
  constructor(private readonly options: { rpcUrls: Partial<Record<Network, string>>; logLookbackBlocks?: bigint }) {}

  async authorization(network: Network, authorizer: string, nonce: string): Promise<AuthorizationOnChain> {
    const url = this.options.rpcUrls[network];
    if (!url) throw new Error(`no RPC configured for ${network}`);
    const client = createPublicClient({ transport: http(url, { timeout: 10_000 }) });
    const usdc = NETWORKS[network].usdc;
    const used = await client.readContract({
      address: usdc,
      abi: AUTHORIZATION_STATE,
      functionName: 'authorizationState',
      args: [authorizer as Hex, nonce as Hex],
    });
    if (!used) return { used: false, transaction: null };
    const latest = await client.getBlockNumber();
    const lookback = this.options.logLookbackBlocks ?? 10_000n;
    const logs = await client.getLogs({
      address: usdc,
      event: AUTHORIZATION_USED,
      args: { authorizer: authorizer as Hex, nonce: nonce as Hex },
      fromBlock: latest > lookback ? latest - lookback : 0n,
      toBlock: latest,
    });
    return { used: true, transaction: logs[0]?.transactionHash ?? null };
  }
}
