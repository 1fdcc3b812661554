import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { QuoteProvider } from '../ports/quote-provider.js';
import type { TokenIssuer } from '../ports/token-issuer.js';
import type { TradeQuoter } from '../ports/trade-quoter.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { Settings } from './settings.js';
import type { TokenViewCache } from './token-view-cache.js';

/** What every use case may use: ports and settings, never an adapter. */
export interface AppDeps {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  tradeQuoter: TradeQuoter;
  /** USD prices of assets (SPEC §15): the quote router, however many sources are behind it. */
  usdQuotes: QuoteProvider;
  /** The launched tokens on chain (SPEC §14): addresses, balances, authorizations. */
  tokenIssuer: TokenIssuer;
  settings: Settings;
  /** Hot token views, checked against the event log on every read (none: every read builds the view). */
  tokenViews?: TokenViewCache;
}
