/**
 * Admission's last check: the facilitator verifies the signed payment against the requirements it
 * was bound to. Its refusals are worded here: an expired authorization, a wallet without the funds,
 * or the facilitator's own reason — each with the fresh offers.
 */
import { FacilitatorError, InsufficientFunds } from '../../../domain/errors.js';
import type { PaymentPayload, PaymentRequirements, VerifyResult } from '../../../ports/facilitator.js';
import type { ExactAuthorization } from '../exact-authorization.js';
import type { Offer } from '../offers.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { PipelineDeps } from './deps.js';
import type { Refusal } from './refusal.js';

/** The official EVM facilitator refuses an authorization valid for less than 6 s more: too late to be mined. */
const SETTLE_MARGIN_SECONDS = 6n;
/** The last second a Date can show. */
const MAX_DATE_SECONDS = 8_640_000_000_000n;

export async function verify(
  deps: PipelineDeps,
  refusal: Refusal,
  payload: PaymentPayload,
  auth: ExactAuthorization,
  requirements: PaymentRequirements,
  offer: Offer,
): Promise<VerifyResult> {
  let result: VerifyResult;
  const began = deps.clock.now().getTime();
  try {
    result = await deps.facilitator.verify(payload, requirements);
  } catch (e) {
    // A facilitator that could not answer, or a chain it could not reach: 503, not 502.
    if (e instanceof FacilitatorError) await deps.availability?.confirm(offer.network, began);
    throw e;
  }
  if (result.isValid) return result;
  // A verification fails when the chain it simulates on is down: the payment is not invalid then.
  await deps.availability?.confirm(offer.network, began);
  if (expired(deps, auth, result.invalidReason)) {
    // The facilitator's clock is the one that counts; ours only words the answer.
    const at = auth.validBefore < MAX_DATE_SECONDS ? new Date(Number(auth.validBefore) * 1000).toISOString() : `${auth.validBefore} s`;
    throw await refusal.invalid(
      PAYMENT_REASONS.authorizationExpired,
      `The payment's authorization expired at ${at} (validBefore), or is too close to it to be settled; nothing was charged. Sign a new payment for the price in PAYMENT-REQUIRED.`,
      result.invalidReason ? { facilitatorReason: result.invalidReason } : {},
    );
  }
  if (isInsufficientFunds(result.invalidReason)) {
    throw new InsufficientFunds(`The wallet does not hold enough ${offer.asset} for this payment.`, {
      reason: result.invalidReason,
      paymentRequired: await refusal.required(),
    });
  }
  throw await refusal.invalid(result.invalidReason ?? PAYMENT_REASONS.invalidPayment, result.invalidMessage ?? 'The payment did not verify.');
}

/** Whether a refused authorization was refused for its `validBefore`: by the facilitator's reason, or by our clock. */
function expired(deps: PipelineDeps, auth: ExactAuthorization, reason: string | undefined): boolean {
  if (reason !== undefined && /valid_before|expired/.test(reason)) return true;
  const now = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
  return auth.validBefore < now + SETTLE_MARGIN_SECONDS;
}

/** The fake's reason and the official EVM facilitator's ("invalid_exact_evm_insufficient_balance"). */
function isInsufficientFunds(reason: string | undefined): boolean {
  return reason !== undefined && /insufficient_(funds|balance)/.test(reason);
}
