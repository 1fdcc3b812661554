import type { CurveParams, CurveState } from '../domain/curve.js';
import type { Network } from '../domain/network.js';

/** Where the token trades on chain: what a pool quoter reads reserves by. */
export interface TokenRef {
  network: Network;
  address: string;
}

export interface BuyPriceRequest {
  side: 'buy';
  params: CurveParams;
  curve: CurveState;
  /** The token on chain; a pool quoter needs it (the curve does not). */
  token?: TokenRef;
  usdAmount?: bigint;
  tokens?: bigint;
}
export interface SellPriceRequest {
  side: 'sell';
  params: CurveParams;
  curve: CurveState;
  token?: TokenRef;
  tokens: bigint;
}

export interface PriceQuote {
  provider: string;
  usdAmount: bigint;
  tokens: bigint;
  feeUsd: bigint;
}

/**
 * Prices a trade on a venue — the curve (`curve`), or a graduated token's Uniswap v2 pool
 * (`uniswap-v2`, docs/api.md "Graduation and the Uniswap v2 pool") — fee included; USD prices of assets are QuoteProvider.
 */
export interface TradeQuoter {
  readonly name: string;
  price(request: BuyPriceRequest | SellPriceRequest): Promise<PriceQuote>;
}
