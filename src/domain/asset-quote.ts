import type { Network, PaymentAsset } from './network.js';
import type { UsdPrice } from './usd-price.js';

/**
 * The USD price of a payment asset, held for one request (docs/pricing.md): the 402 prices its EURC
 * offer at it and the paid retry within `expiresAt` is matched against the same amount.
 */
export interface AssetQuote {
  readonly quoteId: string;
  /** What it is held for: the request (resource and body hash), the network and the asset. */
  readonly holdKey: string;
  readonly network: Network;
  readonly asset: PaymentAsset;
  readonly price: UsdPrice;
  /** Who priced it (the router names the sources of its median). */
  readonly provider: string;
  readonly observedAt: Date;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** How long a 402's asset prices are held (the same 60 s as a quote, docs/api.md "Paid endpoints"). */
export const ASSET_QUOTE_TTL_SECONDS = 60;

export function assetQuoteHoldKey(requestHash: string, network: Network, asset: PaymentAsset): string {
  return `${requestHash}:${network}:${asset}`;
}
