/**
 * authorizationState(authorizer, nonce) on the payment asset's contract (USDC or EURC), read at one block together with
 * that block's timestamp, and the AuthorizationUsed / AuthorizationCanceled log that tells a use
 * from a cancellation.
 */
import { parseAbiItem, type Hex } from 'viem';
import { assetAddress, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { AuthorizationOnChain, AuthorizationReader } from '../../../ports/authorization-reader.js';
import { publicClients } from '../../kit/evm/rpc-transport.js';

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
const AUTHORIZATION_CANCELED = parseAbiItem('event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)');

export class ViemAuthorizationReader implements AuthorizationReader {

  private readonly client: ReturnType<typeof publicClients>;

  constructor(private readonly options: { rpcUrls: Partial<Record<Network, string>>; logLookbackBlocks?: bigint }) {
    this.client = publicClients(options.rpcUrls);
  }


  async authorization(network: Network, authorizer: string, nonce: string, asset: PaymentAsset = 'USDC'): Promise<AuthorizationOnChain> {
    const client = this.client(network);
    const usdc = assetAddress(network, asset);
    // One block for both reads: "unused at a block at or past validBefore" is then a proof.
    const block = await client.getBlock({ blockTag: 'latest' });
    const blockTime = block.timestamp;
    const set = await client.readContract({
      address: usdc,
      abi: AUTHORIZATION_STATE,
      functionName: 'authorizationState',
      args: [authorizer as Hex, nonce as Hex],
      blockNumber: block.number,
    });
    if (!set) return { state: 'unused', transaction: null, blockTime };
    const lookback = this.options.logLookbackBlocks ?? 10_000n;
    const range = { fromBlock: block.number > lookback ? block.number - lookback : 0n, toBlock: block.number };
    const args = { authorizer: authorizer as Hex, nonce: nonce as Hex };
    const used = await client.getLogs({ address: usdc, event: AUTHORIZATION_USED, args, ...range });
    if (used[0]) return { state: 'used', transaction: used[0].transactionHash, blockTime };
    const cancelled = await client.getLogs({ address: usdc, event: AUTHORIZATION_CANCELED, args, ...range });
    if (cancelled[0]) return { state: 'cancelled', transaction: null, blockTime };
    // Set, but neither log within the lookback: count it as used — the payer must never lose money to a guess.
    return { state: 'used', transaction: null, blockTime };
  }
}
