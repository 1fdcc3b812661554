import type { Token } from '../../../domain/token.js';
import type { VenueName } from '../../../domain/trade.js';
import type { AppDeps } from '../../kit/deps.js';
import { curveVenue } from './curve-venue.js';
import { poolVenue } from './pool-venue.js';
import { venueNameFor, type TradeVenue } from './trade-venue.js';

/** The venue a trade of `token` on `side` goes to (the table in trade-venue.ts); TOKEN_GRADUATED where there is none. */
export function venueFor(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tradeQuoter' | 'poolQuoter' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>, token: Token, side: 'buy' | 'sell'): TradeVenue {
  return venueNamed(deps, venueNameFor(token, side));
}

/** The venue a plan was made on. */
export function venueNamed(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tradeQuoter' | 'poolQuoter' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>, name: VenueName): TradeVenue {
  return name === 'uniswap-v2' ? poolVenue(deps) : curveVenue(deps);
}
