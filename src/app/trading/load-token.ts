import { TokenGraduated, TokenNetworkMismatch, TokenNotFound } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import { assertTradable, curveOpenForSells, type Token } from '../../domain/token.js';
import type { TokenRef, TradeQuoter } from '../../ports/trade-quoter.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../deps.js';

export async function loadToken(stores: Stores, tokenId: string, forUpdate = false): Promise<Token> {
  const token = forUpdate ? await stores.tokens.getForUpdate(tokenId) : await stores.tokens.get(tokenId);
  if (!token) throw new TokenNotFound(tokenId);
  return token;
}

/** A token the caller may trade on its curve: it exists, is ACTIVE, and lives on the caller's network. */
export async function loadTradableToken(
  stores: Stores,
  tokenId: string,
  callerNetwork: Network | undefined,
  forUpdate = false,
): Promise<Token> {
  const token = await loadToken(stores, tokenId, forUpdate);
  if (callerNetwork !== undefined && callerNetwork !== token.network) {
    throw new TokenNetworkMismatch(token.network, callerNetwork);
  }
  assertTradable(token);
  return token;
}

/**
 * Where a token's trades are priced: its curve while ACTIVE, its Uniswap v2 pool once graduated
 * and the pool exists (docs/api.md "Graduation"); a graduated token whose pool is not there yet is
 * TOKEN_GRADUATED, but one whose pool FAILED sells on its curve again.
 */
export function venueOf(
  deps: Pick<AppDeps, 'tradeQuoter' | 'poolQuoter'>,
  token: Token,
  side: 'buy' | 'sell',
): { quoter: TradeQuoter; ref: TokenRef | undefined } {
  if (token.state === 'ACTIVE' || (side === 'sell' && curveOpenForSells(token))) return { quoter: deps.tradeQuoter, ref: undefined };
  if (token.pool?.state === 'CREATED' && token.address && deps.poolQuoter) {
    return { quoter: deps.poolQuoter, ref: { network: token.network, address: token.address } };
  }
  throw new TokenGraduated(token.tokenId, curveOpenForSells(token));
}
