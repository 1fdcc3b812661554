/**
 * Admission's binding: the payment must be for exactly this — one of our offers (price, asset,
 * recipient, scheme), an authorization that itself moves exactly the price to the treasury, and
 * this resource; and an offer at a held quote only while the live price is near it. EIP-3009 does
 * not sign the resource, so `resource` is the binding we can check: a payload without one is refused.
 * An `upto` payment's price is a maximum: it is bound by upto/upto-binding.ts.
 */
import { formatUsdPrice } from '../../../domain/usd-price.js';
import type { PaymentPayload, PaymentRequirements } from '../../../ports/facilitator.js';
import type { Prepared } from '../../kit/catalogue/entrypoint.js';
import type { ExactAuthorization } from '../exact-authorization.js';
import { amountAt, heldQuoteIsLive, type Offer } from '../offers.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import { matchRequirements } from '../requirements.js';
import { sameResource } from '../resource.js';
import type { PipelineDeps } from './deps.js';
import type { Refusal } from './refusal.js';
import type { UptoPayment } from '../upto/permit2-payment.js';
import { bindUpto } from '../upto/upto-binding.js';

/** The offer a payment is bound to, and the requirements it was signed against. */
export interface Bound {
  offer: Offer;
  requirements: PaymentRequirements;
}

/**
 * `offer`: ours for the asset and network the payment names, if we offer that pair for this
 * request; `signed`: an exact payment's authorization, an upto payment's Permit2 transfer
 * (upto/upto-binding.ts), or a voucher (checked against its channel).
 */
export async function bind(
  refusal: Refusal,
  prepared: Prepared,
  payload: PaymentPayload,
  signed: { exact: ExactAuthorization } | { upto: UptoPayment } | { voucher: true },
  offer: Offer | undefined,
  resourceUrl: string,
): Promise<Bound> {
  const bound = 'upto' in signed ? await bindUpto(refusal, payload, signed.upto, offer) : await bindOffer(refusal, prepared, payload, 'exact' in signed ? signed.exact : null, offer);
  const url = payload.resource?.url;
  if (typeof url !== 'string' || url === '') {
    throw await refusal.invalid(PAYMENT_REASONS.resourceMissing, 'The payment does not name the resource it pays for (x402 v2 `resource`).');
  }
  if (!sameResource(url, resourceUrl)) {
    throw await refusal.invalid(PAYMENT_REASONS.resourceMismatch, 'The payment was made for another resource.');
  }
  return bound;
}

/** An exact payment, or a voucher: exactly one of our offers, price included. */
async function bindOffer(refusal: Refusal, prepared: Prepared, payload: PaymentPayload, auth: ExactAuthorization | null, offer: Offer | undefined): Promise<Bound> {
  const requirements = offer ? matchRequirements(offer.batch ? [offer.requirements, offer.batch] : [offer.requirements], payload.accepted) : undefined;
  if (!offer || !requirements) {
    const wrongAmount = offer !== undefined && payload.accepted?.amount !== offer.amount.toString();
    if (wrongAmount && offer.lapsed && payload.accepted?.amount === amountAt(offer.lapsed, prepared.amount).toString()) {
      throw await refusal.invalid(
        PAYMENT_REASONS.quoteExpired,
        `The ${offer.asset} price held for this request expired at ${offer.lapsed.expiresAt.toISOString()} and the price is another now; nothing was charged. Pay the fresh price in PAYMENT-REQUIRED.`,
      );
    }
    throw await refusal.invalid(
      wrongAmount ? PAYMENT_REASONS.invalidAmount : PAYMENT_REASONS.requirementsMismatch,
      wrongAmount
        ? `The payment must carry exactly the price, ${offer.amount} ${offer.asset} units${offer.quote ? ' at the held quote' : ''}.`
        : 'The payment does not match the requirements of this request (asset, recipient or scheme).',
    );
  }
  // Defence in depth: the facilitator checks the signed values too. (A voucher's are checked against its channel: batch/voucher-verification.ts.)
  if (auth && (auth.value !== offer.amount || auth.to.toLowerCase() !== requirements.payTo.toLowerCase())) {
    throw await refusal.invalid(PAYMENT_REASONS.authorizationMismatch, 'The signed authorization does not pay exactly the price to the treasury.');
  }
  return { offer, requirements };
}

/**
 * A price held for a 402 (EURC, or USDC below its depeg floor) is honoured only while the live
 * price is within the router's spread bound of it; past it the payment is refused before
 * settlement, the hold is dropped, and the 402 offers the live price.
 */
export async function heldQuoteLive(deps: PipelineDeps, refusal: Refusal, offer: Offer): Promise<void> {
  const held = offer.quote;
  if (!held) return;
  const live = await deps.usdQuotes.usdPrice(offer.asset, offer.network);
  const bound = deps.settings.quoteMaxSpreadBps;
  if (heldQuoteIsLive(held, live.price, bound)) return;
  await deps.uow.run((s) => s.assetQuotes.release(held.holdKey, held.quoteId));
  deps.metrics.increment('payment_quotes_moved_total');
  throw await refusal.invalid(
    PAYMENT_REASONS.quoteMoved,
    `The ${offer.asset} price held for this request (${formatUsdPrice(held.price)} USD) is more than ${bound} bps from the live price (${formatUsdPrice(live.price)} USD); nothing was charged. Pay the fresh price in PAYMENT-REQUIRED.`,
    { heldPrice: formatUsdPrice(held.price), livePrice: formatUsdPrice(live.price), maxSpreadBps: Number(bound) },
  );
}
