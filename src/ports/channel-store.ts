import type { Channel } from '../domain/channel.js';
import type { Network } from '../domain/network.js';

/**
 * Payment channels of the x402 `batch-settlement` scheme (docs/payments.md "Pay once, call many"):
 * every move a compare-and-set, so racing requests, workers and processes agree. Amounts are
 * bigints of the asset's smallest units; channel ids are stored lower case.
 */
export interface ChannelStore {
  get(channelId: string): Promise<Channel | null>;
  /** A payer's channels (any letter case), newest first. */
  ofPayer(payer: string, limit: number): Promise<Channel[]>;
  /**
   * A deposit seen on chain: the channel is recorded if new (`channel` as given), else its
   * balance and refund nonce become the chain's when they are newer (never lowered by a stale read).
   */
  funded(channel: Channel, now: Date): Promise<Channel>;
  /**
   * Charges `amount` to the channel with the voucher of `voucherMax` if its `charged` is still
   * `from` and the voucher covers `from + amount` within the balance: one winner among racing
   * vouchers. False when it moved (the loser gets the corrective 402).
   */
  charge(channelId: string, c: { from: bigint; amount: bigint; voucherMax: bigint; signature: string }, now: Date): Promise<boolean>;
  /**
   * Takes back a charge of a call that was refused after it was charged, if no claim has taken
   * (or is taking) it: false otherwise (the refund is then paid out instead).
   */
  uncharge(channelId: string, amount: bigint, now: Date): Promise<boolean>;
  /** Channels on `network` with charges no claim has taken and none under way, oldest first. */
  claimable(network: Network, limit: number): Promise<Channel[]>;
  /** Channels with a claim under way since before `before` (a claim whose sender died), oldest first. */
  claimsUnderWay(before: Date, limit: number): Promise<Channel[]>;
  /** Marks a claim of `total` under way if none is and `total` is within what is charged; false otherwise. */
  startClaim(channelId: string, total: bigint, now: Date): Promise<boolean>;
  /** The chain shows `total` claimed: `claimed` rises to it (never falls) and the claim under way ends. */
  claimed(channelId: string, total: bigint, now: Date): Promise<void>;
  /** A claim under way that the chain shows did not happen: it ends, the charges stay claimable. */
  claimAbandoned(channelId: string, now: Date): Promise<void>;
  /**
   * A cooperative refund mined: the channel's balance, claimed total and refund nonce as the
   * chain shows them after it.
   */
  refunded(channelId: string, after: { balance: bigint; claimed: bigint; refundNonce: bigint }, now: Date): Promise<void>;
}
