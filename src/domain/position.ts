/**
 * Positions: one per network × wallet × token, kept with the average-cost method (docs/api.md "Resources" and "Curve and prices").
 * Cost basis is the gross USD paid, fee included.
 */
import { valueAtSpot, type CurveState } from './curve.js';
import { InsufficientBalance, InvariantViolation } from './errors.js';
import { floorDiv, formatTokens } from './money.js';
import type { Network } from './network.js';

export interface Position {
  readonly network: Network;
  readonly wallet: string;
  readonly tokenId: string;
  readonly balance: bigint;
  readonly costBasisUsd: bigint;
  /** May be negative. */
  readonly realizedPnlUsd: bigint;
  /**
   * Tokens a sell booked as received by transfer before the transfer indexer had booked that
   * transfer (`withTransfersIn`): the next transfers the indexer books into this position are
   * these tokens, so they are taken off them instead of being counted twice.
   */
  readonly prebookedIn: bigint;
  readonly updatedAt: Date;
}

export function emptyPosition(network: Network, wallet: string, tokenId: string, now: Date): Position {
  return { network, wallet, tokenId, balance: 0n, costBasisUsd: 0n, realizedPnlUsd: 0n, prebookedIn: 0n, updatedAt: now };
}

export function applyBuy(p: Position, tokens: bigint, grossUsd: bigint, now: Date): Position {
  if (tokens <= 0n || grossUsd < 0n) throw new InvariantViolation('a buy must add tokens');
  return { ...p, balance: p.balance + tokens, costBasisUsd: p.costBasisUsd + grossUsd, updatedAt: now };
}

function assertCanSell(p: Position | null, tokens: bigint): void {
  const balance = p?.balance ?? 0n;
  if (tokens > balance) throw new InsufficientBalance(formatTokens(tokens), formatTokens(balance));
}

/**
 * Tokens the wallet holds on chain beyond its ledger balance came to it by transfer (docs/api.md)
 * that the transfer indexer has not booked yet: a sell of `tokens` first books the missing part
 * at a cost basis of 0, so the position never goes negative and the PnL of what it bought stays
 * its own. The part is remembered (`prebookedIn`) so the indexer does not book it again.
 */
export function withTransfersIn(p: Position, tokens: bigint, now: Date): Position {
  return tokens > p.balance ? { ...p, balance: tokens, prebookedIn: p.prebookedIn + tokens - p.balance, updatedAt: now } : p;
}

/**
 * Tokens leaving a position by an on-chain transfer (docs/decisions/0020): they take their share
 * of the cost basis with them, floor(costBasis·t/b) as a sell does, and realize nothing. A
 * transfer of more than the position holds moves what it holds: the rest (`shortfall`) was sold
 * already — a sell booked before the indexer reached this transfer counted those tokens as still
 * here — so the sell took that many from what the wallet received later, and they join
 * `prebookedIn`. The position never goes negative.
 */
export function applyTransferOut(p: Position, tokens: bigint, now: Date): { position: Position; basisUsd: bigint; shortfall: bigint } {
  if (tokens <= 0n) throw new InvariantViolation('a transfer must move tokens');
  const moved = tokens > p.balance ? p.balance : tokens;
  const basisUsd = p.balance === 0n ? 0n : floorDiv(p.costBasisUsd * moved, p.balance);
  const shortfall = tokens - moved;
  return {
    position: { ...p, balance: p.balance - moved, costBasisUsd: p.costBasisUsd - basisUsd, prebookedIn: p.prebookedIn + shortfall, updatedAt: now },
    basisUsd,
    shortfall,
  };
}

/**
 * Tokens arriving in a position by an on-chain transfer, with the cost basis that left the
 * sender (0 when they come from an address that never holds a position: the pool, the zero
 * address). Tokens a sell already booked (`prebookedIn`) are taken off first: they were sold, so
 * their part of the basis is charged to realized PnL instead — as if the transfer had been booked
 * before the sell.
 */
export function applyTransferIn(p: Position, tokens: bigint, basisUsd: bigint, now: Date): Position {
  if (tokens <= 0n || basisUsd < 0n) throw new InvariantViolation('a transfer must move tokens');
  const already = p.prebookedIn < tokens ? p.prebookedIn : tokens;
  const basisSold = floorDiv(basisUsd * already, tokens);
  return {
    ...p,
    balance: p.balance + tokens - already,
    costBasisUsd: p.costBasisUsd + basisUsd - basisSold,
    realizedPnlUsd: p.realizedPnlUsd - basisSold,
    prebookedIn: p.prebookedIn - already,
    updatedAt: now,
  };
}

/** Removes floor(costBasis·t/b) from the basis; realized PnL grows by usdOut minus that. */
export function applySell(p: Position, tokens: bigint, usdOut: bigint, now: Date): Position {
  assertCanSell(p, tokens);
  if (tokens <= 0n || usdOut < 0n) throw new InvariantViolation('a sell must remove tokens');
  const basisRemoved = floorDiv(p.costBasisUsd * tokens, p.balance);
  return {
    ...p,
    balance: p.balance - tokens,
    costBasisUsd: p.costBasisUsd - basisRemoved,
    realizedPnlUsd: p.realizedPnlUsd + usdOut - basisRemoved,
    updatedAt: now,
  };
}

export interface PositionValuation {
  valueUsd: bigint;
  unrealizedPnlUsd: bigint;
}

export function valuePosition(p: Position, curve: CurveState): PositionValuation {
  const valueUsd = valueAtSpot(curve, p.balance);
  return { valueUsd, unrealizedPnlUsd: valueUsd - p.costBasisUsd };
}
