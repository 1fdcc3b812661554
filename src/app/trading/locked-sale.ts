/**
 * A sale of tokens a vested dev buy still locks (docs/api.md "Fees and earnings", decision 0079):
 * refused with 409 TOKENS_LOCKED before any payment — a sell, and a sell order when it is placed.
 */
import { TokensLocked } from '../../domain/errors.js';
import { formatTokens } from '../../domain/money.js';
import type { Token } from '../../domain/token.js';
import { lockedShortfall } from '../../domain/vesting.js';

/** Throws TOKENS_LOCKED when `wallet`, holding `heldOnChain`, is short of `requested` because tokens of its are locked. */
export function refuseLockedSale(token: Pick<Token, 'tokenId' | 'creator' | 'vesting'>, wallet: string, requested: bigint, heldOnChain: bigint): void {
  const locked = lockedShortfall(token, wallet, requested, heldOnChain);
  if (locked === 0n) return;
  const next = token.vesting?.nextReleaseAtMs;
  throw new TokensLocked({
    tokenId: token.tokenId,
    wallet,
    requested: formatTokens(requested),
    available: formatTokens(heldOnChain),
    locked: formatTokens(locked),
    nextReleaseAt: next === null || next === undefined ? null : new Date(next).toISOString(),
  });
}
