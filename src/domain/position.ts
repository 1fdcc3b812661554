/**
 * Positions: one per network × wallet × token, kept with the average-cost method (SPEC §4, §6).
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
  readonly updatedAt: Date;
}

export function emptyPosition(network: Network, wallet: string, tokenId: string, now: Date): Position {
  return { network, wallet, tokenId, balance: 0n, costBasisUsd: 0n, realizedPnlUsd: 0n, updatedAt: now };
}

export function applyBuy(p: Position, tokens: bigint, grossUsd: bigint, now: Date): Position {
  if (tokens <= 0n || grossUsd < 0n) throw new InvariantViolation('a buy must add tokens');
  return { ...p, balance: p.balance + tokens, costBasisUsd: p.costBasisUsd + grossUsd, updatedAt: now };
}

export function assertCanSell(p: Position | null, tokens: bigint): void {
  const balance = p?.balance ?? 0n;
  if (tokens > balance) throw new InsufficientBalance(formatTokens(tokens), formatTokens(balance));
}

/**
 * Tokens the wallet holds on chain beyond its ledger balance came to it by transfer (SPEC §14):
 * a sell of `tokens` first books the missing part at a cost basis of 0, so the position never
 * goes negative and the PnL of what it bought stays its own.
 */
export function withTransfersIn(p: Position, tokens: bigint, now: Date): Position {
  return tokens > p.balance ? { ...p, balance: tokens, updatedAt: now } : p;
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
