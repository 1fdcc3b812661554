/**
 * Payouts on chain: a `transfer` of the payout's asset (USDC or EURC) from the treasury, signed with a nonce from the account's
 * one queue so its hash is known (and recorded) before it is broadcast.
 */
import { encodeFunctionData, type Hex } from 'viem';
import { assetAddress, type Network } from '../../../domain/network.js';
import type { Payout } from '../../../domain/payout.js';
import type { PayoutSender, PreparedTransfer } from '../../../ports/payout-sender.js';
import { SignedTransactionSender, type NonceQueue, type SignerOptions } from '../../kit/evm/signed-transactions.js';
import { ERC20_ABI } from '../../kit/evm/viem-chain.js';

export interface ViemPayoutSenderOptions extends SignerOptions {
  treasuryKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
  /** The treasury key's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
}

export class ViemPayoutSender extends SignedTransactionSender implements PayoutSender {
  constructor(options: ViemPayoutSenderOptions) {
    super(options.treasuryKey, options.rpcUrls, options);
  }

  get treasury(): Hex {
    return this.txs.address;
  }

  async prepare(payout: Payout): Promise<PreparedTransfer> {
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [payout.wallet as Hex, payout.amount] });
    const { rawTx, txHash } = await this.txs.sign(payout.network, { to: assetAddress(payout.network, payout.asset), data, gas: 100_000n });
    return { rawTx, txHash };
  }
}
