import type { CurveParams, CurveState } from '../domain/curve.js';

export interface BuyPriceRequest {
  side: 'buy';
  params: CurveParams;
  curve: CurveState;
  usdAmount?: bigint;
  tokens?: bigint;
}
export interface SellPriceRequest {
  side: 'sell';
  params: CurveParams;
  curve: CurveState;
  tokens: bigint;
}

export interface PriceQuote {
  provider: string;
  usdAmount: bigint;
  tokens: bigint;
  feeUsd: bigint;
}

/** Prices a trade on a venue (the curve today, a graduated pool later); USD prices of assets are QuoteProvider. */
export interface TradeQuoter {
  readonly name: string;
  price(request: BuyPriceRequest | SellPriceRequest): Promise<PriceQuote>;
}
