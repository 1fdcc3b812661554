/**
 * Payouts on chain: a `transfer` of the payout's asset (USDC or EURC) from the treasury, signed with a nonce from the account's
 * one queue so its hash is known (and recorded) before it is broadcast. Confirmed only by the
 * Transfer log of that amount to that wallet in its receipt (docs/decisions/0066).
 */
import { decodeFunctionData, encodeFunctionData, type Hex, type TransactionReceipt } from 'viem';
import { assetAddress, type Network } from '../../../domain/network.js';
import type { Payout } from '../../../domain/payout.js';
import type { PayoutSender, PreparedTransfer } from '../../../ports/payout-sender.js';
import { describeMissing, missingTransfers } from '../../kit/evm/receipt-effects.js';
import { SignedTransactionSender, type EffectCheck, type NonceQueue, type SignerOptions } from '../../kit/evm/signed-transactions.js';
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

  /** The asset's Transfer of the amount from the treasury to the wallet (a filler to ourselves carries no calldata: nothing expected). */
  protected override missingEffect(_network: Network, tx: Parameters<EffectCheck>[1], receipt: TransactionReceipt): string | null {
    if (!tx.to || !tx.data || tx.data === '0x') return null;
    const { functionName, args } = decodeFunctionData({ abi: ERC20_ABI, data: tx.data });
    if (functionName !== 'transfer') return null;
    const [to, amount] = args as readonly [Hex, bigint];
    return describeMissing(missingTransfers(receipt, [{ token: tx.to, from: this.treasury, to, amount }]));
  }
}
