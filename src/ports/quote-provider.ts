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

/** Prices a trade. The curve itself is the first provider; external venues may follow. */
export interface QuoteProvider {
  readonly name: string;
  price(request: BuyPriceRequest | SellPriceRequest): Promise<PriceQuote>;
}
