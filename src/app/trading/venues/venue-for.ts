import type { Token } from '../../../domain/token.js';
import type { VenueName } from '../../../domain/trade.js';
import type { AppDeps } from '../../kit/deps.js';
import { curveVenue } from './curve-venue.js';
import { poolVenue } from './pool-venue.js';
import { venueNameFor, type TradeVenue } from './trade-venue.js';

/** What trading through either venue uses: the curve's quoter, the pool's, and custody's swaps. */
export type VenueDeps = Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tradeQuoter' | 'poolQuoter' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>;

/** The venue a trade of `token` on `side` goes to (the table in trade-venue.ts); TOKEN_GRADUATED where there is none. */
export function venueFor(deps: VenueDeps, token: Token, side: 'buy' | 'sell'): TradeVenue {
  return venueNamed(deps, venueNameFor(token, side));
}

/** The venue a plan was made on. */
export function venueNamed(deps: VenueDeps, name: VenueName): TradeVenue {
  return name === 'uniswap-v2' ? poolVenue(deps) : curveVenue(deps);
}
