/**
 * Payouts on chain: a USDC `transfer` from the treasury, signed locally with an explicit nonce
 * so its hash is known (and recorded) before it is broadcast.
 */
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  keccak256,
  parseTransaction,
  type Hex,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { Payout } from '../../../domain/payout.js';
import type { PayoutSender, PreparedTransfer, TransferStatus } from '../../../ports/payout-sender.js';
import { ERC20_ABI, viemChain } from '../../shared/viem-chain.js';


export interface ViemPayoutSenderOptions {
  treasuryKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
}

export class ViemPayoutSender implements PayoutSender {
  private readonly account: PrivateKeyAccount;
  /** Next nonce per network, so consecutive payouts in one pass do not collide. */
  private readonly nextNonce = new Map<Network, number>();

  constructor(private readonly options: ViemPayoutSenderOptions) {
    this.account = privateKeyToAccount(options.treasuryKey);
  }

  get treasury(): Hex {
    return this.account.address;
  }

  private chain(network: Network) {
    const url = this.options.rpcUrls[network];
    if (!url) throw new Error(`no RPC configured for ${network}`);
    const chain = viemChain(network, url);
    const transport = http(url, { timeout: 10_000 });
    return {
      chain,
      publicClient: createPublicClient({ chain, transport }),
      wallet: createWalletClient({ chain, transport, account: this.account }),
    };
  }

  async prepare(payout: Payout): Promise<PreparedTransfer> {
    const { publicClient, wallet } = this.chain(payout.network);
    const onChain = await publicClient.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
    const nonce = Math.max(onChain, this.nextNonce.get(payout.network) ?? 0);
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [payout.wallet as Hex, payout.amount] });
    const request = await wallet.prepareTransactionRequest({ to: NETWORKS[payout.network].usdc, data, nonce, gas: 100_000n });
    const rawTx = await wallet.signTransaction(request);
    this.nextNonce.set(payout.network, nonce + 1);
    return { rawTx, txHash: keccak256(rawTx) };
  }

  async broadcast(network: Network, rawTx: string): Promise<void> {
    const { publicClient } = this.chain(network);
    try {
      await publicClient.sendRawTransaction({ serializedTransaction: rawTx as Hex });
    } catch (e) {
      const message = (e as Error).message;
      // Already known or already mined: the broadcast has happened before.
      if (/already known|known transaction|nonce too low|already imported/i.test(message)) return;
      throw e;
    }
  }

  async status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus> {
    const { publicClient } = this.chain(network);
    const receipt = await publicClient.getTransactionReceipt({ hash: txHash as Hex }).catch(() => null);
    if (receipt) return receipt.status === 'success' ? 'confirmed' : 'reverted';
    const tx = await publicClient.getTransaction({ hash: txHash as Hex }).catch(() => null);
    if (tx) return 'pending';
    const nonce = parseTransaction(rawTx as Hex).nonce ?? 0;
    const used = await publicClient.getTransactionCount({ address: this.account.address, blockTag: 'latest' });
    return used > nonce ? 'dropped' : 'pending';
  }
}
