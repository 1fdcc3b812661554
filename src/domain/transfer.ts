/**
 * Launched tokens moving on chain outside the service's own trades (docs/decisions/0020): which
 * `Transfer` logs change positions, and how. The service's own transfers are booked by its
 * trades already — deliveries and returns from custody, pulls into custody, custody's swaps and
 * liquidity with the pool, the mint at deployment — so they change nothing here.
 */
import { BURN_ADDRESS } from './graduation.js';
import type { Network } from './network.js';
import { applyTransferIn, applyTransferOut, emptyPosition, type Position } from './position.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** One ERC-20 `Transfer` log of a launched token. */
export interface TokenTransfer {
  readonly network: Network;
  /** The token's contract (checksummed). */
  readonly token: string;
  readonly from: string;
  readonly to: string;
  /** Token units (1e-18). */
  readonly amount: bigint;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly txHash: string;
  /** The log's index in its block. */
  readonly logIndex: number;
  /**
   * The log's place among its transaction's Transfer logs of launched tokens: unlike `logIndex`
   * it stays the same when a reorganisation mines the transaction again in another block.
   */
  readonly txLogIndex: number;
}

/** Where a transfer's tokens come from and go to, as far as the books are concerned. */
export interface TransferParties {
  /** The service's custody (the treasury): holds the unsold supply, never a position. */
  custody: string;
  /** The token's Uniswap v2 pair, when there is one. */
  pair: string | null;
  /**
   * The LaunchFactory that seeds graduation pools (decision 0023): it holds tokens only inside a
   * seed transaction (pulled from custody, swapped with the pair, sent to the pair and the burn
   * address), never a position. Null where there is none.
   */
  seeder?: string | null;
  /** Whether the transaction is one of the service's own pulls (a sell's receiveWithAuthorization). */
  servicePull: boolean;
}

/**
 * - `move`: wallet → wallet; the sender's average cost goes with the tokens, no PnL for either.
 * - `in`: from an address that holds no position (the pair, the zero address) → wallet; cost 0.
 * - `out`: wallet → an address that holds no position (the pair, a burn, custody outside a
 *   service pull); the tokens leave at average cost, no PnL.
 * - `none`: booked by the service's trades already, or between addresses without positions.
 */
export type TransferBooking = 'move' | 'in' | 'out' | 'none';

const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

/** Addresses that never get a position: custody, the zero address, 0x…dEaD, the token's pair, the pool seeder. */
export function holdsPositions(address: string, parties: Pick<TransferParties, 'custody' | 'pair' | 'seeder'>): boolean {
  return (
    !same(parties.custody, address) &&
    !same(ZERO_ADDRESS, address) &&
    !same(BURN_ADDRESS, address) &&
    !same(parties.pair, address) &&
    !same(parties.seeder ?? null, address)
  );
}

export function bookingOf(t: Pick<TokenTransfer, 'from' | 'to' | 'amount'>, parties: TransferParties): TransferBooking {
  if (t.amount === 0n) return 'none';
  const fromHolder = holdsPositions(t.from, parties);
  const toHolder = holdsPositions(t.to, parties);
  if (fromHolder && toHolder) return same(t.from, t.to) ? 'none' : 'move';
  if (toHolder) return same(parties.custody, t.from) ? 'none' : 'in'; // custody's transfers out are deliveries
  if (fromHolder) return same(parties.custody, t.to) && parties.servicePull ? 'none' : 'out';
  return 'none';
}

/** The positions a booked transfer leaves, and the cost basis that moved with its tokens. */
export interface TransferBooked {
  /** The sender's position after it (null: it had none, or the sender holds no positions). */
  readonly from: Position | null;
  /** The receiver's position after it (null: the receiver holds no positions). */
  readonly to: Position | null;
  readonly basisUsd: bigint;
  /**
   * Tokens sent beyond the sender's position: sold already by a sell booked before this transfer
   * (kept in the sender's `prebookedIn`), or — from a wallet with no position at all — tokens the
   * books never knew of (custody sent them outside a delivery).
   */
  readonly shortfall: bigint;
}

/**
 * Books a transfer of `booking` kind between the positions the two parties hold (null for none):
 * the sender's tokens leave at its average cost, the receiver's arrive with that cost (0 from an
 * address without positions), and neither realizes PnL.
 */
export function bookTransfer(
  booking: Exclude<TransferBooking, 'none'>,
  t: Pick<TokenTransfer, 'network' | 'from' | 'to' | 'amount'> & { tokenId: string },
  held: { from: Position | null; to: Position | null },
  now: Date,
): TransferBooked {
  let from: Position | null = null;
  let basisUsd = 0n;
  let shortfall = 0n;
  if (booking === 'move' || booking === 'out') {
    if (held.from) {
      const out = applyTransferOut(held.from, t.amount, now);
      ({ position: from, basisUsd, shortfall } = out);
    } else shortfall = t.amount;
  }
  const to = booking === 'move' || booking === 'in' ? applyTransferIn(held.to ?? emptyPosition(t.network, t.to, t.tokenId, now), t.amount, basisUsd, now) : null;
  return { from, to, basisUsd, shortfall };
}
