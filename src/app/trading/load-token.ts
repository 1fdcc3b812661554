import { TokenNetworkMismatch, TokenNotDeployed, TokenNotFound } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import { venueNameFor, type TradePhase } from './venues/trade-venue.js';

/** The token; locked for the unit of work with `forUpdate` (`positionOf`: the wallet whose position the unit reads next). */
export async function loadToken(stores: Stores, tokenId: string, forUpdate = false, positionOf?: string): Promise<Token> {
  const token = forUpdate ? await stores.tokens.getForUpdate(tokenId, positionOf) : await stores.tokens.get(tokenId);
  if (!token) throw new TokenNotFound(tokenId);
  return token;
}

/** A trade's token lives on the network the caller pays on (when the caller is known). */
export function onCallerNetwork(token: Token, callerNetwork: Network | undefined): Token {
  if (callerNetwork !== undefined && callerNetwork !== token.network) throw new TokenNetworkMismatch(token.network, callerNetwork);
  return token;
}

export type DeployedToken = Token & { address: string };

/** A token whose contract is on chain (TOKEN_NOT_DEPLOYED before): what a sell pulls and a wallet signs for. */
export function deployedToken(token: Token): DeployedToken {
  if (token.deployment.state !== 'DEPLOYED' || !token.address) throw new TokenNotDeployed(token.tokenId, token.deployment.state);
  return token as DeployedToken;
}

/**
 * The token a trade on `side` trades: it exists, lives on the caller's network, and has a venue
 * for that side (trade-venue.ts; else TOKEN_GRADUATED).
 */
export async function tradedToken(
  stores: Stores,
  tokenId: string,
  side: 'buy' | 'sell',
  callerNetwork: Network | undefined,
  forUpdate = false,
  positionOf?: string,
): Promise<Token> {
  return tradable(await loadToken(stores, tokenId, forUpdate, positionOf), side, callerNetwork);
}

/** The token, if it lives on the caller's network and has a venue for `side`. */
function tradable(token: Token, side: 'buy' | 'sell', callerNetwork: Network | undefined): Token {
  venueNameFor(onCallerNetwork(token, callerNetwork), side);
  return token;
}

/**
 * `tradedToken` for the checks before a trade — a 402 (`ask`), the rules before and after the
 * claim (`price`): the row kept while the change feed vouches for it (tokens/token-rows.ts, decision
 * 0057). A settled payment being applied (`apply`) reads it, as the trade itself does. `stores`:
 * the caller's unit of work, when it has one open.
 */
export async function checkedToken(
  deps: Pick<AppDeps, 'tokenRows' | 'clock' | 'uow'>,
  tokenId: string,
  side: 'buy' | 'sell',
  callerNetwork: Network | undefined,
  phase: TradePhase,
  stores?: Stores,
): Promise<Token> {
  // Without the caller's unit of work, a kept row takes no connection at all.
  const read = () => (stores ? stores.tokens.get(tokenId) : deps.uow.run((s) => s.tokens.get(tokenId)));
  const token = phase !== 'apply' && deps.tokenRows ? await deps.tokenRows.get(tokenId, deps.clock.now(), read) : await read();
  if (!token) throw new TokenNotFound(tokenId);
  return tradable(token, side, callerNetwork);
}
