/**
 * USD amounts in the stablecoins a caller pays with (docs/pricing.md), from the quote port: EURC at the
 * current EUR/USD-ish quote, USDC 1:1 unless it trades below USDC_DEPEG_FLOOR — then from its
 * quote too. Amounts round up (the caller pays at least the USD price); no quote is
 * ServiceUnavailable from the router, never a guessed rate.
 */
import type { Network, PaymentAsset } from '../../domain/network.js';
import { USDC_DECIMALS } from '../../domain/money.js';
import { assetAmountForUsd, compareUsdPrices, usdValueOf, type UsdPrice } from '../../domain/usd-price.js';
import type { QuoteProvider, UsdQuote } from '../../ports/quote-provider.js';

export type { PaymentAsset };
export const PAYMENT_ASSET_DECIMALS = USDC_DECIMALS;

export interface AssetAmount {
  asset: PaymentAsset;
  /** Smallest units of the asset to pay. */
  amount: bigint;
  /** The quote the amount was computed from (to hold and record with the payment). */
  quote: UsdQuote;
  /** True when USDC was taken 1:1 (at or above the depeg floor). */
  atPar: boolean;
}

/** Whether USDC trades below the floor on `network`, with the quote that says so. */
export async function usdcDepeg(quotes: QuoteProvider, network: Network, floor: UsdPrice): Promise<{ belowFloor: boolean; quote: UsdQuote }> {
  const quote = await quotes.usdPrice('USDC', network);
  return { belowFloor: compareUsdPrices(quote.price, floor) < 0, quote };
}

/** How much of `asset` pays `usdAmount` (micro-dollars) on `network`, rounded up. */
export async function assetAmountFor(
  quotes: QuoteProvider,
  asset: PaymentAsset,
  network: Network,
  usdAmount: bigint,
  usdcDepegFloor: UsdPrice,
): Promise<AssetAmount> {
  if (asset === 'USDC') {
    const { belowFloor, quote } = await usdcDepeg(quotes, network, usdcDepegFloor);
    if (!belowFloor) return { asset, amount: usdAmount, quote, atPar: true };
    return { asset, amount: assetAmountForUsd(usdAmount, quote.price, PAYMENT_ASSET_DECIMALS), quote, atPar: false };
  }
  const quote = await quotes.usdPrice(asset, network);
  return { asset, amount: assetAmountForUsd(usdAmount, quote.price, PAYMENT_ASSET_DECIMALS), quote, atPar: false };
}

/** The USD value (micro-dollars, rounded down) a payment of `amount` is booked at, under the quote it was priced with. */
export function bookedUsdValue(paid: Pick<AssetAmount, 'amount' | 'quote' | 'atPar'>): bigint {
  return paid.atPar ? paid.amount : usdValueOf(paid.amount, paid.quote.price, PAYMENT_ASSET_DECIMALS);
}

/** The amount of a payment's asset that pays `usdAmount` at the quote it was priced with (rounded up). */
export function amountAtQuote(quotePrice: UsdPrice | null, usdAmount: bigint): bigint {
  return quotePrice === null ? usdAmount : assetAmountForUsd(usdAmount, quotePrice, PAYMENT_ASSET_DECIMALS);
}
