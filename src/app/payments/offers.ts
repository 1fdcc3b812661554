/**
 * What a 402 offers (docs/pricing.md): for each network, USDC then EURC, each for the USD price. EURC
 * (and USDC when it trades below USDC_DEPEG_FLOOR) is priced at a quote held 60 s per (request,
 * network, asset), so the paid retry is matched against exactly the amount the 402 offered;
 * after the hold expires a fresh quote is taken. A held quote is honoured only while the live price
 * stays within the router's spread bound of it (the payment flow checks before settling). No
 * price is ServiceUnavailable from the quote router (503 + Retry-After): an offer is never priced
 * at a guess.
 */
import { ASSET_QUOTE_TTL_SECONDS, assetQuoteHoldKey, type AssetQuote } from '../../domain/asset-quote.js';
import { PAYMENT_ASSETS, type Network, type PaymentAsset } from '../../domain/network.js';
import { assetAmountForUsd, compareUsdPrices, usdValueOf, withinBps, type UsdPrice } from '../../domain/usd-price.js';
import type { PaymentRequirements } from '../../ports/facilitator.js';
import type { AppDeps } from '../kit/deps.js';
import { PAYMENT_ASSET_DECIMALS } from '../pricing/index.js';
import { batchRequirementsFor, requirementsFor, uptoRequirementsFor } from './requirements.js';

export interface Offer {
  network: Network;
  asset: PaymentAsset;
  /** Smallest units of `asset`. */
  amount: bigint;
  /** What a payment of `amount` is booked as, in micro-dollars (rounded down at the quote). */
  usdValue: bigint;
  /** The held quote; null for USDC taken 1:1. */
  quote: AssetQuote | null;
  /** The quote held here before, which had expired when this offer was made (if still stored). */
  lapsed: AssetQuote | null;
  requirements: PaymentRequirements;
  /** The same price by the batch-settlement scheme; null where it is not offered. */
  batch: PaymentRequirements | null;
  /**
   * Where the price is a maximum (docs/payments.md "Pay up to"): the `upto` offer of the most a
   * payer may authorize, in `asset` at the same quote; null where it is not offered.
   */
  upto: PaymentRequirements | null;
}

/** A price to offer: the USD price, and where it is a maximum the most a payer may authorize by `upto` (pricing.ts). */
export interface Price {
  amount: bigint;
  maximum?: bigint | undefined;
}

type OfferDeps = Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'usdQuotes' | 'settings'>;

/** Every offer for `price` on `networks`, USDC first per network; the quotes held for them read in one query. */
export async function offersFor(
  deps: OfferDeps,
  requestHash: string,
  networks: readonly Network[],
  price: Price,
  assets: readonly PaymentAsset[] = PAYMENT_ASSETS,
): Promise<Offer[]> {
  const pairs = networks.flatMap((network) => assets.map((asset) => ({ network, asset, holdKey: assetQuoteHoldKey(requestHash, network, asset) })));
  const held = await deps.uow.run((s) => s.assetQuotes.latestOf(pairs.map((p) => p.holdKey)));
  return Promise.all(pairs.map(({ network, asset, holdKey }) => offerFor(deps, requestHash, network, asset, price, held.get(holdKey) ?? null)));
}

/**
 * One offer: at the held quote, or 1:1 for USDC at or above the floor, or at a fresh quote now
 * held. `known`: the quote last held for it, when the caller read it already.
 */
export async function offerFor(
  deps: OfferDeps,
  requestHash: string,
  network: Network,
  asset: PaymentAsset,
  price: Price,
  known?: AssetQuote | null,
): Promise<Offer> {
  const usdAmount = price.amount;
  const holdKey = assetQuoteHoldKey(requestHash, network, asset);
  const now = deps.clock.now();
  const last = known !== undefined ? known : await deps.uow.run((s) => s.assetQuotes.latest(holdKey));
  let quote = last && last.expiresAt > now ? last : null;
  const lapsed = quote ? null : last;
  if (!quote) {
    const fresh = await deps.usdQuotes.usdPrice(asset, network);
    if (asset === 'USDC' && compareUsdPrices(fresh.price, deps.settings.usdcDepegFloor) >= 0) {
      return offer(deps, network, asset, usdAmount, usdAmount, null, lapsed, price.maximum);
    }
    const candidate: AssetQuote = {
      quoteId: deps.ids.next('aqt'),
      holdKey,
      network,
      asset,
      price: fresh.price,
      provider: fresh.provider,
      observedAt: fresh.observedAt,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ASSET_QUOTE_TTL_SECONDS * 1000),
    };
    quote = await deps.uow.run((s) => s.assetQuotes.hold(candidate, now));
  }
  const amount = assetAmountForUsd(usdAmount, quote.price, PAYMENT_ASSET_DECIMALS);
  const maximum = price.maximum === undefined ? undefined : assetAmountForUsd(price.maximum, quote.price, PAYMENT_ASSET_DECIMALS);
  return offer(deps, network, asset, amount, usdValueOf(amount, quote.price, PAYMENT_ASSET_DECIMALS), quote, lapsed, maximum);
}

/**
 * The offer a payment of `paid` units of `asset` answers. A USDC payment of exactly the USD price
 * while USDC trades at or above the floor is the 1:1 offer, bound with no read of the hold: a
 * quote held there would have priced it at another amount. Anything else is `offerFor`.
 */
export async function paidOffer(deps: OfferDeps, requestHash: string, network: Network, asset: PaymentAsset, price: Price, paid: bigint | null): Promise<Offer> {
  if (asset === 'USDC' && paid === price.amount) {
    const fresh = await deps.usdQuotes.usdPrice(asset, network);
    if (compareUsdPrices(fresh.price, deps.settings.usdcDepegFloor) >= 0) return offer(deps, network, asset, price.amount, price.amount, null, null, price.maximum);
  }
  return offerFor(deps, requestHash, network, asset, price);
}

function offer(
  deps: OfferDeps,
  network: Network,
  asset: PaymentAsset,
  amount: bigint,
  usdValue: bigint,
  quote: AssetQuote | null,
  lapsed: AssetQuote | null,
  maximum: bigint | undefined,
): Offer {
  const requirements = requirementsFor(network, amount, deps.settings.payTo[network], asset);
  const batch = deps.settings.batchSettlement;
  const upto = deps.settings.upto;
  return {
    network,
    asset,
    amount,
    usdValue,
    quote,
    lapsed,
    requirements,
    batch: batch ? batchRequirementsFor(requirements, batch) : null,
    upto: upto && maximum !== undefined ? uptoRequirementsFor(requirements, maximum > amount ? maximum : amount, upto.facilitatorAddress[network]) : null,
  };
}

/** The amount of an offer's asset that paid `usdAmount` at a (lapsed) quote's price, as its offer was. */
export function amountAt(quote: AssetQuote, usdAmount: bigint): bigint {
  return assetAmountForUsd(usdAmount, quote.price, PAYMENT_ASSET_DECIMALS);
}

/**
 * Whether a held quote may still be honoured: the live price is within the router's spread bound
 * of it (QUOTE_MAX_SPREAD_BPS). Past it, paying at the held price is an option on the rate.
 */
export function heldQuoteIsLive(held: AssetQuote, live: UsdPrice, maxSpreadBps: bigint): boolean {
  return withinBps(held.price, live, maxSpreadBps);
}
