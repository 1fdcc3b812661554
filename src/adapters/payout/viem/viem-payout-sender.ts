/**
 * Payouts on chain: a `transfer` of the payout's asset (USDC or EURC) from the treasury, signed with a nonce from the account's
 * one queue so its hash is known (and recorded) before it is broadcast.
 */
import { encodeFunctionData, type Hex } from 'viem';
import { assetAddress, type Network } from '../../../domain/network.js';
import type { Payout } from '../../../domain/payout.js';
import type { PayoutSender, PreparedTransfer, TransferStatus } from '../../../ports/payout-sender.js';
import { SignedTransactions, type NonceQueue } from '../../shared/signed-transactions.js';
import { ERC20_ABI } from '../../shared/viem-chain.js';

export interface ViemPayoutSenderOptions {
  treasuryKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
  /** The treasury key's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
}

export class ViemPayoutSender implements PayoutSender {
  private readonly txs: SignedTransactions;

  constructor(options: ViemPayoutSenderOptions) {
    this.txs = new SignedTransactions(options.treasuryKey, options.rpcUrls, { ...(options.nonces ? { nonces: options.nonces } : {}) });
  }

  get treasury(): Hex {
    return this.txs.address;
  }

  async prepare(payout: Payout): Promise<PreparedTransfer> {
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [payout.wallet as Hex, payout.amount] });
    const { rawTx, txHash } = await this.txs.sign(payout.network, { to: assetAddress(payout.network, payout.asset), data, gas: 100_000n });
    return { rawTx, txHash };
  }

  release(network: Network): void {
    this.txs.release(network);
  }

  broadcast(network: Network, rawTx: string): Promise<void> {
    return this.txs.broadcast(network, rawTx);
  }

  status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus> {
    return this.txs.status(network, txHash, rawTx);
  }

  unblock(network: Network, rawTx: string): Promise<number> {
    return this.txs.fillNonceGap(network, rawTx);
  }
}
