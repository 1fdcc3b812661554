import type { Earning } from '../domain/earnings.js';
import type { FeeRole } from '../domain/fees.js';
import type { Network } from '../domain/network.js';

/** What a wallet has earned of one token in one role, in USD micro-units. */
export interface EarningsLine {
  readonly network: Network;
  readonly tokenId: string;
  readonly role: FeeRole;
  /** Everything earned. */
  readonly accrued: bigint;
  /** Paid by a confirmed payout. */
  readonly paid: bigint;
}

/** A wallet's unpaid earnings in the roles one payout reason pays. */
export interface UnpaidEarnings {
  readonly network: Network;
  readonly wallet: string;
  readonly roles: readonly FeeRole[];
  readonly amount: bigint;
}

export interface CreatorEarnings {
  readonly wallet: string;
  readonly accrued: bigint;
  readonly tokens: number;
}

/**
 * Fee shares earned by creators and referrers (docs/api.md "Fees and earnings"): booked in the
 * trade's transaction, paid by payouts that claim the unpaid rows they pay.
 */
export interface EarningsStore {
  accrue(earnings: readonly Earning[]): Promise<void>;
  /** Wallets whose unpaid earnings in `roles` reach `atLeast`, up to `limit`. */
  unpaid(roles: readonly FeeRole[], atLeast: bigint, limit: number): Promise<UnpaidEarnings[]>;
  /**
   * Marks the wallet's unpaid rows in `roles` as paid by `payoutId` and returns their sum: only
   * rows still unpaid are taken, so two payers racing for them split nothing twice.
   */
  claimUnpaid(network: Network, wallet: string, roles: readonly FeeRole[], payoutId: string): Promise<bigint>;
  /** A wallet's earnings by token and role; `paid` counts rows whose payout is CONFIRMED. */
  ofWallet(wallet: string): Promise<EarningsLine[]>;
  /** What each token's creator has earned of it. */
  creatorTotals(tokenIds: readonly string[]): Promise<Map<string, bigint>>;
  /** Creators by what they have earned, most first. */
  topCreators(limit: number): Promise<CreatorEarnings[]>;
}
