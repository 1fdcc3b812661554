/**
 * The orders of GET /tokens, shared by the store adapters so they page identically:
 * every sort is descending on its key, ties broken by tokenId descending.
 */
import { marketCapUsd } from '../../../domain/curve.js';
import type { Token } from '../../../domain/token.js';
import type { TokenSort } from '../../../ports/token-repository.js';

/** The sort key of a token as a fixed-width string, so string order equals numeric order. */
export function sortKey(token: Token, sort: TokenSort, volume24h: bigint): string {
  switch (sort) {
    case 'created':
      return token.createdAt.toISOString();
    case 'marketCap':
      return pad(marketCapUsd(token.params, token.curve));
    case 'volume24h':
      return pad(volume24h);
  }
}

/** Zero-padded to 78 digits: every uint256 fits. */
export function pad(value: bigint): string {
  return value.toString().padStart(78, '0');
}
