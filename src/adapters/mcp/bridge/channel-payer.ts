/**
 * How the stdio bridge pays by default (docs/agents.md "The stdio bridge"): x402's
 * `batch-settlement` with @x402/evm's official client scheme — one deposit into a channel, then a
 * voucher per call, no transaction per call. Deposits stay within the run's BUDGET_USD (a deposit
 * is the payer's money, refundable, but it leaves the wallet); the channel's books are taken up
 * from each answer's settlement (it rides in `_meta`, not in an HTTP header) and from the
 * scheme's corrective 402; at exit what is left in each channel is refunded cooperatively.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { BatchSettlementEvmScheme, computeChannelId, InMemoryClientChannelStorage, updateChannelFromSettle } from '@x402/evm/batch-settlement/client';
import type { PrivateKeyAccount } from 'viem/accounts';
import { formatUsd } from '../../../domain/money.js';
import { isNetwork, NETWORKS } from '../../../domain/network.js';
import type { PaymentRequiredLike } from '../../kit/mcp/x402-mcp.js';

const BATCH = 'batch-settlement';
/** The scheme's corrective 402: the client's books are behind the channel's. */
const CORRECTIVE = new Set(['invalid_batch_settlement_evm_cumulative_amount_mismatch', 'invalid_batch_settlement_evm_cumulative_below_claimed']);

export class ChannelPayer {
  private readonly storage = new InMemoryClientChannelStorage();
  private readonly scheme: BatchSettlementEvmScheme;
  /** USDC units deposited in this run (USDC's 6 decimals: micro-USD). */
  private deposited = 0n;
  private readonly networks = new Set<string>();

  constructor(
    account: PrivateKeyAccount,
    private readonly budget: bigint,
    private readonly log: (line: string) => void,
  ) {
    this.scheme = new BatchSettlementEvmScheme(account, { storage: this.storage, depositStrategy: (c) => this.depositFor(BigInt(c.minimumDepositAmount), BigInt(c.depositAmount)) });
  }

  /** The batch-settlement USDC offer of a 402, where the service makes one. */
  offer(required: PaymentRequiredLike): PaymentRequirements | undefined {
    return (required.accepts as PaymentRequirements[]).find(
      (a) => a.scheme === BATCH && isNetwork(a.network) && a.asset.toLowerCase() === NETWORKS[a.network].assets.USDC.address.toLowerCase() && /^\d+$/.test(a.amount),
    );
  }

  /** The payment for `offer`: a voucher, with a deposit when the channel needs one (within the budget). */
  async pay(required: PaymentRequiredLike, offer: PaymentRequirements): Promise<unknown> {
    const made = await this.scheme.createPaymentPayload(2, offer);
    this.networks.add(offer.network);
    const deposit = (made.payload as { type?: string; deposit?: { amount?: string } }).deposit?.amount;
    if (deposit) this.deposited += BigInt(deposit);
    return { ...made, accepted: offer, resource: required.resource, ...(required.extensions ? { extensions: required.extensions } : {}) };
  }

  /** Takes up the channel's books from an answer: its settlement, or the corrective 402 (true: pay again). */
  async answered(offer: PaymentRequirements, payment: unknown, settlement: { success: boolean; extra?: Record<string, unknown> } | null, refused: PaymentRequiredLike | null): Promise<boolean> {
    if (settlement?.success) {
      const state = settlement.extra?.channelState as { chargedCumulativeAmount?: string } | undefined;
      const deposit = (payment as { payload?: { deposit?: { amount?: string } } }).payload?.deposit?.amount;
      await updateChannelFromSettle(this.storage, {
        server: { chargedAmount: settlement.extra?.chargedAmount as string | undefined, chargedCumulativeAmount: state?.chargedCumulativeAmount },
        local: { channelId: computeChannelId(this.scheme.buildChannelConfig(offer), offer.network), requestAmount: offer.amount, ...(deposit ? { depositAmount: deposit } : {}) },
      });
      return false;
    }
    if (refused?.error && CORRECTIVE.has(refused.error)) return this.scheme.processCorrectivePaymentRequired(refused as never);
    return false;
  }

  /** What is left in every channel of this run goes back to the wallet (cooperative refunds). */
  async refundAll(serviceUrl: string): Promise<void> {
    for (const network of this.networks) {
      try {
        const refund = await this.scheme.refund(`${serviceUrl}/entrypoints/token_info?network=${network}&asset=USDC`);
        this.log(`refunded the ${network} channel's rest to the wallet (transaction ${refund.transaction})`);
      } catch (e) {
        this.log(`no refund of the ${network} channel: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  }

  /** A deposit of what the scheme suggests, within what the budget leaves for deposits; at least what this call needs, or none at all. */
  private depositFor(needed: bigint, suggested: bigint): bigint {
    const room = this.budget - this.deposited;
    const amount = suggested < room ? suggested : room;
    if (amount < needed) throw new Error(`A deposit of $${formatUsd(needed)} would pass BUDGET_USD ($${formatUsd(this.budget)}; $${formatUsd(this.deposited)} deposited this run)`);
    return amount;
  }
}
