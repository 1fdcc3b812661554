/**
 * Where a token trades: its bonding curve (curve-venue.ts), or — once the curve sold out and the
 * token graduated — its Uniswap v2 pool (pool-venue.ts). A use case picks the venue with
 * `venueFor` (venue-for.ts) and asks it, in order, to price, to check before any payment is asked
 * for, and to execute.
 *
 *   token state                     buy                 sell
 *   a fair launch still raising     TOKEN_RAISING       TOKEN_RAISING
 *   ACTIVE                          curve               curve
 *   GRADUATED, pool PENDING         TOKEN_GRADUATED     TOKEN_GRADUATED
 *   GRADUATED, pool CREATED         pool                pool
 *   GRADUATED, pool FAILED          TOKEN_GRADUATED     curve (decision 0023)
 *
 * Graduation is the one change of venue: the curve venue's buy of the last token hands over to
 * `graduate` (trading/graduate.ts), which queues the seeding of the pool.
 */
import { TokenGraduated, TokenNotDeployed, TokenRaising, SlippageExceeded } from '../../../domain/errors.js';
import { formatTokens, formatUsd } from '../../../domain/money.js';
import type { Network } from '../../../domain/network.js';
import type { Token } from '../../../domain/token.js';
import type { TokenAuthorization } from '../../../domain/token-authorization.js';
import type { VenueName } from '../../../domain/trade.js';
import type { BuyPriceRequest, PriceQuote, SellPriceRequest } from '../../../ports/trade-quoter.js';
import type { Funding } from '../../kit/paid.js';
import type { DeliveryView, payoutView, PositionView, TradeView } from '../../kit/views.js';

/**
 * `price`: before a payment (the 402, and again once the payer is proven): everything, the chain
 * included. `ask`: the same, for the 402 of a request without payment: a price held for the
 * asker is offered only while the live one is not lower (decision 0040). `apply`: a settled
 * payment being applied (the reconciler's retry; its pull or swap may have happened already):
 * only what the execution will not check itself.
 */
export type TradePhase = 'ask' | 'price' | 'apply';

export interface BuyPlan {
  tokenId: string;
  network: Network;
  /** The price: exactly what the payment must carry. */
  grossUsd: bigint;
  minTokensOut: bigint;
  quoteId: string | null;
  /** Where the buy executes: the venue that planned it (the curve when absent). */
  venue?: VenueName;
}

export interface BuyCommand {
  plan: BuyPlan;
  buyer: string;
  /** The network of the buyer's payment. */
  network: Network;
  /** Who referred the buy: earns a share of its fee (docs/api.md "Fees and earnings"). */
  referrer?: string | null | undefined;
}

export interface BuyResult {
  tokenId: string;
  tokensReceived: string;
  usdSpent: string;
  feeUsd: string;
  priceUsd: string;
  spotPriceUsd: string;
  position: PositionView;
  trade: TradeView;
  /** Null only for a vested dev buy: its tokens stay in custody, released on the token's vesting schedule. */
  delivery: DeliveryView | null;
  payment: { paymentId: string; network: string; payer: string; transaction: string | null } | null;
}

export interface SellRequest {
  tokenId: string;
  tokens: bigint;
  minUsdOut?: bigint | undefined;
  /** The seller's ReceiveWithAuthorization of exactly `tokens` to custody. */
  authorization: TokenAuthorization;
  /** Who referred the sell: earns a share of its fee (docs/api.md "Fees and earnings"). */
  referrer?: string | null | undefined;
}

export interface SellCommand extends SellRequest {
  seller: string;
  network: Network;
}

export interface SellResult {
  tokenId: string;
  tokensSold: string;
  usdReceived: string;
  feeUsd: string;
  priceUsd: string;
  spotPriceUsd: string;
  position: PositionView;
  trade: TradeView;
  payout: ReturnType<typeof payoutView>;
  /** Custody's receiveWithAuthorization that took the tokens. */
  pullTx: string;
}

/** A sell whose tokens custody pulled: the operation's key (its payment) and the pull's transaction. */
export interface Pulled {
  key: string;
  pullTx: string;
}

/** What a quote asks a venue: the token's own fields (curve, address) are the venue's to add. */
export type VenuePriceRequest = Omit<BuyPriceRequest, 'params' | 'curve' | 'token'> | Omit<SellPriceRequest, 'params' | 'curve' | 'token'>;

export interface TradeVenue {
  readonly name: VenueName;
  /** Prices a trade on this venue now, fee included: a stored quote, a buy of some tokens. */
  price(token: Token, request: VenuePriceRequest): Promise<PriceQuote>;
  /**
   * A buy of `grossUsd` checked against this venue: its bound is the caller's `minTokensOut`, or
   * the venue's default when none was given (the curve: none; the pool: its output less the
   * default slippage). SLIPPAGE_EXCEEDED when the venue cannot meet it now.
   */
  planBuy(token: Token, buy: { grossUsd: bigint; minTokensOut: bigint | undefined; quoteId: string | null }, phase: TradePhase): Promise<BuyPlan>;
  /** Executes a planned buy; its trade, position, delivery and the payment commit together. */
  buy(cmd: BuyCommand, paid?: Funding<BuyResult>): Promise<BuyResult>;
  /** Before a payment: `tokens` can be sold here, for at least `minUsdOut` when one is given. */
  checkSell(token: Token, tokens: bigint, minUsdOut: bigint | undefined): Promise<void>;
  /** Executes a sell of pulled tokens; its trade, position, payout and the payment commit together. */
  sell(token: Token, cmd: SellCommand, pulled: Pulled, paid?: Funding<SellResult>): Promise<SellResult>;
}

/** Where `token` trades on `side`, by the table above; TOKEN_GRADUATED where it does not trade. */
export function venueNameFor(token: Token, side: 'buy' | 'sell'): VenueName {
  // Its tokens can never be delivered nor pulled (decision 0032): it trades nowhere.
  if (token.deployment.state === 'FAILED') throw new TokenNotDeployed(token.tokenId, 'FAILED');
  // A fair launch trades nowhere until its raise settled: its first trade is the raise's own buy.
  if (token.tradingSince === null) throw new TokenRaising(token.tokenId);
  if (token.state === 'ACTIVE') return 'curve';
  if (token.pool?.state === 'CREATED') return 'uniswap-v2';
  if (token.pool?.state === 'FAILED' && side === 'sell') return 'curve';
  throw new TokenGraduated(token.tokenId, side === 'buy' && token.pool?.state === 'FAILED');
}

export function buySlippage(minTokensOut: bigint, tokensOut: bigint): SlippageExceeded {
  return new SlippageExceeded('The buy would receive fewer tokens than the minimum.', formatTokens(minTokensOut), formatTokens(tokensOut));
}

export function sellSlippage(minUsdOut: bigint, usdOut: bigint): SlippageExceeded {
  return new SlippageExceeded('The sell would pay out less than minUsdOut.', formatUsd(minUsdOut), formatUsd(usdOut));
}
