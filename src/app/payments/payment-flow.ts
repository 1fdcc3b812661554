/**
 * A paid request (docs/payments.md), as a pipeline of named steps. Each step is a module of
 * ./pipeline/ with its compensation beside it; `handle` returns a PaidOutcome
 * (pipeline/outcome.ts) that each transport renders, and the reconciler runs the same steps
 * from where a payment stopped.
 *
 *   step         does                                                compensation
 *   challenge    no payment: SIWx proof, access grant, or the 402    none: nothing charged
 *                (only networks whose chain answers; else 503)
 *   admission    decode, replay?, payment identifier?, the chain     none: a refusal is thrown,
 *                and facilitator answer?, network, rules and price   nothing stored
 *                as the payer (priced once), binding, verify
 *   claim        nonce + payment identifier, the second look at      release: REJECTED / FAILED
 *                the rules and price
 *   settlement   SETTLING, settle with no transaction open           none: the reconciler asks
 *                                                                    the chain
 *   application  the operation, APPLIED, answer and receipt stored   refund in the asset that paid
 *
 * THE PRICE. The operation is asked for its rules and price once, in admission, and the plan is
 * carried through binding, verification, claim, settlement and application; the one second look
 * (after the claim, and when the reconciler applies a settled payment) compares with what was
 * priced or paid and says why they differ — all in ./pipeline/pricing.ts, which says why.
 *
 * THE RULE. Until the nonce is claimed, a refusal is thrown: nothing is stored and nothing is
 * charged. From the claim on, every answer is stored with the payment and returned, so the same
 * signature for the same request always gets the same response. (The 402 challenge is no
 * refusal: it is the protocol's first answer, an outcome like the others.)
 *
 * THE FAILED RULE. Only a settlement that answers success moves the payment on at once. Any
 * other outcome — a timeout, a pending transaction, an error, even "failed" — may still move the
 * money (the signed authorization can be mined until `validBefore`), so the payment stays
 * SETTLING, the caller gets 202 with its id, and the reconciler asks the chain: used → applied
 * (or refunded); unused and unusable → FAILED, nothing charged.
 */
import { isRefusal } from '../../domain/errors.js';
import { assetAt, isNetwork } from '../../domain/network.js';
import type { PaymentPayload, ResourceInfo } from '../../ports/facilitator.js';
import type { StoredResponse } from '../../ports/payment-store.js';
import { refundChannel, refundProbe } from './batch/channel-refund.js';
import type { PaymentRequiredObject } from './requirements.js';
import type { AppMetrics } from '../kit/metrics.js';
import { admit } from './pipeline/admission.js';
import { apply } from './pipeline/application.js';
import { challenge } from './pipeline/challenge.js';
import { claim } from './pipeline/claim.js';
import type { PaidRequest, PipelineDeps } from './pipeline/deps.js';
import type { PaidOutcome } from './pipeline/outcome.js';
import { settle } from './pipeline/settlement.js';
import { hashRequest } from './request-hash.js';

export class PaymentFlow {
  constructor(private readonly deps: PipelineDeps) {}

  async handle(req: PaidRequest): Promise<PaidOutcome> {
    const input = req.entrypoint.parse(req.rawInput);
    const requestHash = hashRequest(req.entrypoint.name, input);
    if (!req.payment) return challenge(this.deps, req, input, requestHash);

    let admitted;
    try {
      admitted = await admit(this.deps, req, req.payment, input, requestHash);
    } catch (e) {
      if (isRefusal(e)) countRefusal(this.deps, req.entrypoint.name, req.payment, e.code);
      throw e;
    }
    if (admitted.kind !== 'admitted') return admitted;
    const claimed = await claim(this.deps, admitted);
    if (claimed.kind !== 'claimed') return claimed;
    const settled = await settle(this.deps, claimed);
    if (settled.kind !== 'settled') return settled;
    return apply(this.deps, settled);
  }

  /**
   * A GET of a paid URL (docs/payments.md "Pay once, call many"): without a payment, the
   * batch-settlement offers a cooperative refund is made against (null: the scheme is not
   * offered); with one, the refund of its channel.
   */
  refundProbe(resource: ResourceInfo, only: { network?: string; asset?: string } = {}): PaymentRequiredObject | null {
    return refundProbe(this.deps, resource, undefined, only);
  }

  refundChannel(payment: PaymentPayload, resource: ResourceInfo): Promise<StoredResponse> {
    return refundChannel(this.deps, payment, resource);
  }
}

/** A payment refused before its nonce was claimed: nothing stored, nothing charged — counted by code. */
function countRefusal(deps: { metrics: AppMetrics }, entrypoint: string, payment: PaymentPayload, code: string): void {
  const network = payment.accepted?.network;
  const known = isNetwork(network) ? network : undefined;
  const asset = known && typeof payment.accepted?.asset === 'string' ? assetAt(known, payment.accepted.asset) : undefined;
  deps.metrics.increment('payment_refusals_total', { entrypoint, code, asset: asset ?? 'unknown', network: known ?? 'unknown' });
}
