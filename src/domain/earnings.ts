/**
 * Earnings: the shares of trading fees that creators and referrers earn (docs/api.md "Fees and
 * earnings"). Each trade books one row per earner, in the trade's own transaction; a wallet's
 * unpaid rows are paid out on chain in USDC together once they reach the payout threshold, the
 * rows naming the payout that paid them — so a row is paid once, by one payout.
 */
import type { FeeRole, FeeSplit } from './fees.js';
import type { Network } from './network.js';

export interface Earning {
  readonly earningId: string;
  readonly network: Network;
  /** Checksummed address of the earner. */
  readonly wallet: string;
  readonly role: FeeRole;
  readonly tokenId: string;
  readonly tradeId: string;
  /** USD micro-units (USDC units): the share of the trade's fee. */
  readonly amount: bigint;
  readonly createdAt: Date;
  /** The payout that pays it; null while unpaid. */
  readonly payoutId: string | null;
}

export const ROLES_OF_REASON: Record<'creator_fee' | 'cashback' | 'referral_fee', readonly FeeRole[]> = {
  creator_fee: ['creator'],
  cashback: ['cashback'],
  referral_fee: ['platform_referrer', 'trade_referrer'],
};

/** The rows a trade's fee split books. */
export function earningsOf(
  split: FeeSplit,
  trade: { tradeId: string; tokenId: string; network: Network; createdAt: Date },
  nextId: () => string,
): Earning[] {
  return split.shares.map((s) => ({
    earningId: nextId(),
    network: trade.network,
    wallet: s.wallet,
    role: s.role,
    tokenId: trade.tokenId,
    tradeId: trade.tradeId,
    amount: s.amount,
    createdAt: trade.createdAt,
    payoutId: null,
  }));
}
