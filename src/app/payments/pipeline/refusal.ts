/**
 * How admission refuses a payment: a thrown error that carries the challenge again
 * (`details.paymentRequired`, the fresh offers for this request), so a client pays again from any
 * refusal. Nothing is stored or charged before the claim, so nothing needs undoing.
 */
import { PaymentInvalid, type ErrorDetails } from '../../../domain/errors.js';
import { ALL_NETWORKS, isNetwork } from '../../../domain/network.js';
import type { Prepared } from '../../kit/catalogue/entrypoint.js';
import type { PaymentRequiredObject } from '../requirements.js';
import { paymentRequiredFor } from './challenge.js';
import type { PaidRequest, PipelineDeps } from './deps.js';

export interface Refusal {
  /** The fresh 402 of this request: the operation's network, else the one the payment names, else all. */
  required(error?: string): Promise<PaymentRequiredObject>;
  /** 402 PAYMENT_INVALID for `reason`; `message` is also the 402's `error`. */
  invalid(reason: string, message: string, extra?: ErrorDetails): Promise<PaymentInvalid>;
}

export function refusalFor(deps: PipelineDeps, req: PaidRequest, requestHash: string, prepared: Prepared): Refusal {
  const required = (error?: string) => {
    const hint = req.payment?.accepted?.network;
    const networks = prepared.network ? [prepared.network] : isNetwork(hint) ? [hint] : ALL_NETWORKS;
    return paymentRequiredFor(deps, req.resource, requestHash, networks, prepared, error);
  };
  return {
    required,
    invalid: async (reason, message, extra = {}) => new PaymentInvalid(message, { reason, ...extra, paymentRequired: await required(message) }),
  };
}
