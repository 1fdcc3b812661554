import { TokenNetworkMismatch, TokenNotFound } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import { assertTradable, type Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';

export async function loadToken(stores: Stores, tokenId: string, forUpdate = false): Promise<Token> {
  const token = forUpdate ? await stores.tokens.getForUpdate(tokenId) : await stores.tokens.get(tokenId);
  if (!token) throw new TokenNotFound(tokenId);
  return token;
}

/** A token the caller may trade: it exists, is ACTIVE, and lives on the caller's network. */
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
