/**
 * authorizationState(authorizer, nonce) on the payment asset's contract (USDC or EURC), read at one block together with
 * that block's timestamp, and the AuthorizationUsed / AuthorizationCanceled log that tells a use
 * from a cancellation.
 *
 * An upto payment's Permit2 transfer: Permit2's `nonceBitmap` at one block, and, when its nonce is
 * spent, the settlement that spent it — a Transfer of the payment's amount from the owner to the
 * treasury in a transaction calling the x402 upto proxy with this very nonce (its calldata read
 * with @x402/evm's ABI). A spent nonce without it was spent otherwise: nothing was paid under it.
 */
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { decodeFunctionData, parseAbiItem, type Hex } from 'viem';
import { assetAddress, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { AuthorizationOnChain, AuthorizationReader, Permit2Transfer } from '../../../ports/authorization-reader.js';
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
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const NONCE_BITMAP = [
  {
    type: 'function',
    name: 'nonceBitmap',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'wordPos', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
/** The settlement calls of the upto proxy, by name: where their Permit2 permit, and the owner, are among the arguments. */
const SETTLE_ARGS: Record<string, { permit: number; owner: number }> = { settle: { permit: 0, owner: 2 }, settleWithPermit: { permit: 1, owner: 3 } };

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

  async permit2Transfer(network: Network, t: Permit2Transfer): Promise<AuthorizationOnChain> {
    const client = this.client(network);
    const block = await client.getBlock({ blockTag: 'latest' });
    const blockTime = block.timestamp;
    const nonce = BigInt(t.nonce);
    const word = await client.readContract({
      address: PERMIT2_ADDRESS,
      abi: NONCE_BITMAP,
      functionName: 'nonceBitmap',
      args: [t.owner as Hex, nonce >> 8n],
      blockNumber: block.number,
    });
    if (((word >> (nonce & 0xffn)) & 1n) === 0n) return { state: 'unused', transaction: null, blockTime };
    const lookback = this.options.logLookbackBlocks ?? 10_000n;
    const range = { fromBlock: block.number > lookback ? block.number - lookback : 0n, toBlock: block.number };
    const transfers = await client.getLogs({ address: assetAddress(network, t.asset ?? 'USDC'), event: TRANSFER, args: { from: t.owner as Hex, to: t.to as Hex }, ...range });
    // Newest first: a settlement is read soon after it is sent.
    const candidates = [...new Set(transfers.filter((l) => l.args.value === t.amount).map((l) => l.transactionHash).reverse())];
    for (const hash of candidates) {
      const tx = await client.getTransaction({ hash });
      if (tx.to?.toLowerCase() !== x402UptoPermit2ProxyAddress.toLowerCase() || !settles(tx.input, t.owner, nonce)) continue;
      return { state: 'used', transaction: hash, blockTime };
    }
    // Spent, but not by a settlement paying `to`: invalidated by its owner, or taken by another Permit2 transfer.
    return { state: 'cancelled', transaction: null, blockTime };
  }
}

/** Whether calldata is the upto proxy's settlement of `owner`'s Permit2 transfer with `nonce`. */
function settles(input: Hex, owner: string, nonce: bigint): boolean {
  try {
    const call = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data: input });
    const at = SETTLE_ARGS[call.functionName];
    const args = call.args as readonly unknown[] | undefined;
    if (!at || !args) return false;
    const permit = args[at.permit] as { nonce?: bigint } | undefined;
    return permit?.nonce === nonce && String(args[at.owner]).toLowerCase() === owner.toLowerCase();
  } catch {
    return false;
  }
}
