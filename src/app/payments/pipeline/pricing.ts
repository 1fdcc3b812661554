/**
 * The priced plan: the one place the payment pipeline asks an operation for its rules and its
 * price (`Entrypoint.prepare`). Every step works on the plan asked here, never on one of its own.
 *
 *   ask          the 402 of a request without payment, as the hinted wallet     challenge
 *   price        a paid request, once, as its payer, before verification         admission
 *   second look  the rules and the price again where a decision says they must   claim; the
 *                be looked at again, compared with what was priced or paid       reconciler's apply
 *
 * A paid request is priced once: `priceAsPayer` in admission, before anything is verified, so a
 * payment for another price or against the rules is refused uncharged and nothing is stored. The
 * plan is carried from there — bound to an offer, verified, claimed, settled, applied.
 *
 * The second look (`lookAgain`) is the only re-pricing, and it never sets a price of its own: it
 * asks again, compares with what was priced (or, for a settled payment the reconciler finishes,
 * with what it paid) and says why they differ. It runs
 * - at the claim (decision 0024): verification takes the facilitator's time, and the token, the
 *   payer's balance or a held authorization may change meanwhile; now that the nonce is ours, a
 *   refusal is stored REJECTED and never charged, where the trade's own locked check would only
 *   refuse after the money moved (a refund). On a quiet token it reads nothing (decision 0057).
 *   The plan it returns is the one carried on: it agrees on the price and is the fresher;
 * - when a SETTLED payment is applied off its request (`apply` phase, decision 0061): no plan
 *   survives the request that died, so the payment itself is what the price is compared with.
 *
 * Held quotes are not re-priced here: the payment's quote (`Payment.quotePrice`) converts the USD
 * price into the asset that paid, and `heldQuoteLive` (binding.ts) checks the hold in admission.
 */
import { NetworkMismatch, PaymentInvalid, TokenNetworkMismatch } from '../../../domain/errors.js';
import type { Network } from '../../../domain/network.js';
import type { Payment } from '../../../domain/payment.js';
import type { AppDeps } from '../../kit/deps.js';
import type { AnyEntrypoint, Caller, Prepared } from '../../kit/catalogue/entrypoint.js';
import { amountAtQuote } from '../../pricing/index.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';

/** The 402's price: the rules as the hinted wallet would pay (a held price offered only while the live one is not lower). */
export async function priceToAsk(deps: AppDeps, ep: AnyEntrypoint, input: unknown, hinted: Caller | undefined): Promise<Prepared> {
  return withMaximum(deps, ep, input, await ep.prepare(deps, input, hinted, 'ask'));
}

/** The price for the 402 that refuses a payment we cannot take at all (not x402, on no network of ours): as no one in particular. */
export async function priceForAnyone(deps: AppDeps, ep: AnyEntrypoint, input: unknown): Promise<Prepared> {
  return withMaximum(deps, ep, input, await ep.prepare(deps, input));
}

/**
 * The plan with the most a payer may authorize for it by `upto`, where the operation's price is a
 * maximum (`Entrypoint.upTo`, docs/payments.md "Pay up to"): never below the price.
 */
export function withMaximum<P extends Prepared>(deps: AppDeps, ep: AnyEntrypoint, input: unknown, prepared: P): P {
  if (!ep.upTo) return prepared;
  const maximum = ep.upTo(deps.settings, input, prepared) as bigint;
  return { ...prepared, maximum: maximum > prepared.amount ? maximum : prepared.amount };
}

/**
 * The paid request's pricing: the rules and the price as the payer, once. A token of the other
 * environment than the payer's wallet is the wallet's network mismatch first.
 */
export async function priceAsPayer(deps: AppDeps, ep: AnyEntrypoint, input: unknown, caller: Caller, paidOn: Network): Promise<Prepared> {
  try {
    return withMaximum(deps, ep, input, await ep.prepare(deps, input, caller));
  } catch (e) {
    if (e instanceof TokenNetworkMismatch && caller.network !== paidOn) throw new NetworkMismatch(caller.network, paidOn);
    throw e;
  }
}

/** What the second look compares with, where it runs. */
export type Looked =
  /** The claim: the plan admission priced; the payment's nonce is ours now. */
  | { at: 'claim'; priced: Prepared }
  /** A SETTLED payment applied off its request: what it paid, in its asset at its own quote. */
  | { at: 'apply'; payment: Payment };

/** Why the second look refuses a price that moved, where it looked. */
const MOVED: Record<Looked['at'], string> = {
  claim: 'The price changed while the payment was verified; request a new price.',
  apply: 'The price changed before the payment could be applied.',
};

/**
 * The second look: the rules and the price again, compared with what was priced or paid. A
 * refusal of the rules is thrown as the operation words it; a price that moved is `price_changed`.
 */
export async function lookAgain(deps: AppDeps, ep: AnyEntrypoint, input: unknown, caller: Caller, against: Looked): Promise<Prepared> {
  const now: Prepared = await ep.prepare(deps, input, caller, against.at === 'apply' ? 'apply' : undefined);
  if (!samePrice(now, against)) throw new PaymentInvalid(MOVED[against.at], { reason: PAYMENT_REASONS.priceChanged });
  return withMaximum(deps, ep, input, now);
}

/**
 * At the claim, the USD price admission priced; for a settled payment, what it paid in its asset
 * at its own quote — unless custody has carried the operation out already (`done`, decision
 * 0061): then it costs what was paid.
 */
function samePrice(now: Prepared, against: Looked): boolean {
  if (against.at === 'claim') return now.amount === against.priced.amount;
  return now.done === true || amountAtQuote(against.payment.quotePrice, now.amount) === against.payment.amount;
}
