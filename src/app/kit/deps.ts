import type { Clock } from '../../ports/clock.js';
import type { DexRouter } from '../../ports/dex-router.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Logger } from '../../ports/logger.js';
import type { QuoteProvider } from '../../ports/quote-provider.js';
import type { MessageSignatures } from '../../ports/signatures.js';
import type { TokenIssuer } from '../../ports/token-issuer.js';
import type { TradeQuoter } from '../../ports/trade-quoter.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import type { PreparedImage } from '../../domain/image.js';
import type { TokenImageUrls } from '../../domain/token.js';
import type { Availability } from './availability.js';
import type { CustodyRole } from './custody-lease.js';
import type { AppMetrics } from './metrics.js';
import type { Settings } from './settings.js';
import type { Token } from '../../domain/token.js';
import type { TokenView } from './views.js';

/** Token images as use cases see them (decision 0049): an upload checked and re-encoded, then stored. The one: tokens/image-intake.ts. */
export interface TokenImages {
  prepare(upload: string): Promise<PreparedImage>;
  store(stores: Stores, prepared: PreparedImage, now: Date): Promise<TokenImageUrls>;
}

/** Hot token views, checked against the event log on every read. The one: tokens/token-view-cache.ts. */
export interface TokenViews {
  /** A view the change feed vouches for, without a lookup; none: ask `get`. */
  trusted(tokenId: string, now: Date): TokenView | undefined;
  get(uow: UnitOfWork, tokenId: string, now: Date, build: () => Promise<TokenView>, options?: { fresh?: boolean }): Promise<TokenView>;
}

/** Token rows for the checks before a trade, kept while the change feed vouches for them. The one: tokens/token-rows.ts. */
export interface TokenRows {
  get(tokenId: string, now: Date, read: () => Promise<Token | null>): Promise<Token | null>;
}

/** What every use case may use: ports and settings, never an adapter. */
export interface AppDeps {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  tradeQuoter: TradeQuoter;
  /** Prices trades of graduated tokens on their Uniswap v2 pool (docs/api.md "Graduation and the Uniswap v2 pool"); none: they are not priced. */
  poolQuoter?: TradeQuoter;
  /** Custody's Uniswap v2 router: buys and sells of graduated tokens swap through it. */
  dex?: DexRouter;
  /** USD prices of assets (docs/pricing.md): the quote router, however many sources are behind it. */
  usdQuotes: QuoteProvider;
  /** The launched tokens on chain (docs/api.md "Tokens on chain"): addresses, balances, authorizations. */
  tokenIssuer: TokenIssuer;
  /** Who signed a message (EIP-191): a wallet's cancel of its order or pledge without Sign-In-With-X. */
  signatures: MessageSignatures;
  settings: Settings;
  /** Hot token views, checked against the event log on every read (none: every read builds the view). */
  tokenViews?: TokenViews;
  /** Token rows for the checks before a trade, kept while the change feed vouches for them (tokens/token-rows.ts; none: every check reads). */
  tokenRows?: TokenRows;
  /** Whether each network's chain and the facilitator answer (none: taken as answering): 503 before a payment is asked for. */
  availability?: Availability;
  /**
   * Whether this process signs for custody (docs/decisions/0031); absent: it always does (one
   * process per store). A process that does not asks the one that does.
   */
  custody?: CustodyRole;
  /**
   * The service's own accounts and contracts that no port names, by address, each with what it
   * is ("the settlement key's account", "the Uniswap v2 factory"): never a referrer
   * (trading/check-referrer.ts). The composition root hands them in.
   */
  ownAccounts?: Readonly<Record<string, string>>;
  /** Token images (docs/decisions/0049): uploads checked, re-encoded and stored; none: an `image` is refused. */
  images?: TokenImages;
  /** Where use cases say what an operator should know (a custody transaction signed again). */
  logger?: Logger;
  /** What use cases count themselves (comments posted, hidden, refused); absent: nothing is counted. */
  metrics?: AppMetrics;
}
