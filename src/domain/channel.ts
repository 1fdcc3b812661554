/**
 * A payment channel of the x402 `batch-settlement` scheme (docs/payments.md "Pay once, call
 * many"): the payer deposits once into the batch-settlement contract; each paid call carries a
 * voucher, the payer's signature of a cumulative maximum the receiver may claim; the service
 * charges each call against it and claims the vouchers on chain in batches.
 *
 * Amounts are the asset's smallest units. The books of a channel, in order:
 *
 *   claimed ≤ charged ≤ signedMax ≤ balance
 *
 * `charged` is the cumulative price of the calls applied or being applied, `signedMax` the
 * highest voucher accepted, `claimed` what the contract has paid out of the channel (or what a
 * claim sent is taking: `claiming`). A voucher pays a call of price p when its maximum covers
 * `charged + p` and the deposit covers the maximum; charging is a compare-and-set on `charged`,
 * so of two vouchers racing on one channel one is charged and the other gets the scheme's
 * corrective 402. Claims carry cumulative totals: the contract sets a channel's claimed total, it
 * never adds to it, so a claim sent twice moves its money once.
 */
import type { Network, PaymentAsset } from './network.js';

export interface ChannelConfig {
  payer: string;
  payerAuthorizer: string;
  receiver: string;
  receiverAuthorizer: string;
  token: string;
  withdrawDelay: number;
  salt: string;
}

export interface Channel {
  /** 0x + 64 hex, lower case: the contract's id of `config` on `network`. */
  readonly channelId: string;
  readonly network: Network;
  readonly asset: PaymentAsset;
  readonly config: ChannelConfig;
  /** The contract's balance of the channel, as last seen: its deposits less its refunds (claims do not lower it; vouchers are bounded by it). */
  readonly balance: bigint;
  /** The cumulative price of the calls charged to the channel. */
  readonly charged: bigint;
  /** The highest voucher accepted, and its signature (the claim's proof). */
  readonly signedMax: bigint;
  readonly signature: string | null;
  /** What the contract has claimed out of the channel, as confirmed. */
  readonly claimed: bigint;
  /** The total a claim sent and not yet confirmed is taking; null when none is under way. */
  readonly claiming: bigint | null;
  readonly claimingSince: Date | null;
  /** The contract's refund nonce, as last seen. */
  readonly refundNonce: bigint;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Why a voucher cannot pay a call, in the scheme's words where it has them. */
export type VoucherShortfall =
  /** Below what the channel has charged plus the price: the client's books are behind (corrective 402). */
  | 'cumulative_mismatch'
  /** Above the deposit: deposit more. */
  | 'exceeds_balance';

/** Whether a voucher of `max` pays a call of `price` on `channel` (null: it does). */
export function voucherShortfall(channel: Pick<Channel, 'charged' | 'balance'>, max: bigint, price: bigint): VoucherShortfall | null {
  if (max < channel.charged + price) return 'cumulative_mismatch';
  if (max > channel.balance) return 'exceeds_balance';
  return null;
}

/** The least a channel's claims may stand at: what was claimed, or what a claim under way is taking. */
export function claimFloor(channel: Pick<Channel, 'claimed' | 'claiming'>): bigint {
  return channel.claiming !== null && channel.claiming > channel.claimed ? channel.claiming : channel.claimed;
}

/** What the payer gets back by a cooperative refund now: the deposit less every charge. */
export function refundable(channel: Pick<Channel, 'balance' | 'charged'>): bigint {
  const left = channel.balance - channel.charged;
  return left > 0n ? left : 0n;
}

/** The commitment identifier a call paid by voucher is settled under (x402's `transaction` for batch-settlement). */
export function voucherCommitment(channelId: string, max: bigint): string {
  return `${channelId}:${max}`;
}

const COMMITMENT = /^0x[0-9a-f]{64}:\d+$/;

/** Whether a payment's settlement is a voucher's commitment (no transaction: the channel was charged). */
export function isVoucherCommitment(settlementTx: string | null): boolean {
  return settlementTx !== null && COMMITMENT.test(settlementTx);
}

/** The channel a voucher's commitment names. */
export function commitmentChannel(settlementTx: string): string {
  return settlementTx.slice(0, 66);
}
