/**
 * Admission's binding of an `upto` payment (docs/payments.md "Pay up to"): it must answer our upto
 * offer for its asset and network (scheme, asset, recipient), its signed transfer must pay that
 * asset to the treasury through the upto proxy, settled by the service's facilitator, and its
 * maximum must cover the operation's price now — what it will be charged — without exceeding the
 * most the offer lets a payer authorize. The price need not be the one a 402 showed: a price that
 * moved within the maximum is charged as it stands (exact's held-price matching is what upto
 * does without). The facilitator verifies it against these requirements with the signed maximum.
 */
import type { PaymentPayload, PaymentRequirements } from '../../../ports/facilitator.js';
import type { Offer } from '../offers.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { Refusal } from '../pipeline/refusal.js';
import { X402_UPTO_PROXY, type UptoPayment } from './permit2-payment.js';

const same = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/** The requirements an upto payment is verified against (our offer with its signed maximum); throws the refusal of one that cannot pay. */
export async function bindUpto(refusal: Refusal, payload: PaymentPayload, p: UptoPayment, offer: Offer | undefined): Promise<{ offer: Offer; requirements: PaymentRequirements }> {
  const offered = offer?.upto;
  const accepted = payload.accepted;
  if (!offer || !offered || accepted?.scheme !== offered.scheme || accepted.network !== offered.network || !same(accepted.asset, offered.asset) || !same(accepted.payTo, offered.payTo)) {
    throw await refusal.invalid(PAYMENT_REASONS.requirementsMismatch, 'The payment does not match the requirements of this request (asset, recipient or scheme).');
  }
  // Defence in depth: the facilitator checks the signed values too.
  if (!same(p.token, offered.asset) || !same(p.to, offered.payTo) || !same(p.spender, X402_UPTO_PROXY) || !same(p.facilitator, offered.extra.facilitatorAddress)) {
    throw await refusal.invalid(
      PAYMENT_REASONS.authorizationMismatch,
      "The signed Permit2 transfer does not pay the offer's asset to the treasury through the upto proxy, settled by the service's facilitator.",
    );
  }
  if (p.maximum < offer.amount) {
    throw await refusal.invalid(
      PAYMENT_REASONS.uptoBelowPrice,
      `The signed maximum, ${p.maximum} ${offer.asset} units, is below the price, ${offer.amount}; nothing was charged. Authorize at least the price (the upto offer in PAYMENT-REQUIRED names the most the service takes).`,
      { maximum: p.maximum.toString(), price: offer.amount.toString() },
    );
  }
  if (p.maximum > BigInt(offered.amount)) {
    throw await refusal.invalid(
      PAYMENT_REASONS.uptoAboveOffer,
      `The signed maximum, ${p.maximum} ${offer.asset} units, is above the most this request lets a payer authorize, ${offered.amount}; nothing was charged. Sign the upto offer in PAYMENT-REQUIRED.`,
      { maximum: p.maximum.toString(), offered: offered.amount },
    );
  }
  return { offer, requirements: { ...offered, amount: p.maximum.toString() } };
}
