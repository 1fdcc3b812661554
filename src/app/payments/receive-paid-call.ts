/**
 * One paid call, whatever the transport (HTTP headers, MCP `_meta`): the shell around the payment
 * pipeline that every transport shares, as x402's `processHTTPRequest` is one function behind a
 * small adapter. The transport says where the payment and the wallet travel (`PaidCall`) and writes
 * the outcome back its own way; everything between is here — the wallet's form, a payment that is
 * no payment held back until the input is known valid, the pipeline's request, the refusal log.
 */
import { isRefusal, PaymentInvalid, ValidationError, type DomainError } from '../../domain/errors.js';
import type { PaymentPayload, ResourceInfo } from '../../ports/facilitator.js';
import type { Logger } from '../../ports/logger.js';
import type { AnyEntrypoint } from '../kit/catalogue/entrypoint.js';
import type { PaymentFlow } from './payment-flow.js';
import type { Outcome, PaidOutcome } from './pipeline/outcome.js';

/** A paid call as a transport hands it over. */
export interface PaidCall {
  entrypoint: AnyEntrypoint;
  /** The raw input, checked by the entrypoint. */
  input: unknown;
  resource: ResourceInfo;
  /** The wallet the caller names (`X-Wallet-Address`, `_meta["launchpad/wallet"]`) and where, for the error that names it. */
  wallet?: { value: unknown; field: string } | undefined;
  /**
   * The payment, when one travels: `read` decodes it (throwing the PaymentInvalid of one that is
   * no payment), `identify` reads its payment identifier (null: none, or a malformed one).
   */
  payment?: { read(): PaymentPayload; identify(payment: PaymentPayload): string | null } | undefined;
  /** A Sign-In-With-X proof of the wallet, where the transport carries one. */
  walletProof?: string | undefined;
  /**
   * Extensions the transport's 402 declares (Bazaar): given to the facilitator where the payment
   * left them out, as if the client had echoed them (decision 0034).
   */
  declared?: Record<string, unknown> | undefined;
  requestId?: string | undefined;
  /** How the refusal log names the call (`{ entrypoint }`, `{ tool }`). */
  logAs: Record<string, string>;
}

export interface ReceivedPaidCall {
  outcome: PaidOutcome;
  /** Who signed the payment and on which network, when it says. */
  payer: { payer: string; network: string } | null;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export async function receivePaidCall(deps: { flow: Pick<PaymentFlow, 'handle'>; logger: Logger }, call: PaidCall): Promise<ReceivedPaidCall> {
  const wallet = call.wallet?.value;
  if (wallet !== undefined && (typeof wallet !== 'string' || !ADDRESS.test(wallet))) {
    throw ValidationError.of(call.wallet!.field, 'must be a 0x-prefixed 20-byte hex address');
  }
  let payment: PaymentPayload | undefined;
  let undecodable: DomainError | undefined;
  try {
    payment = call.payment?.read();
  } catch (e) {
    undecodable = e as DomainError;
  }
  if (payment && call.declared) payment = withDeclared(payment, call.declared);
  try {
    const outcome = await deps.flow.handle({
      entrypoint: call.entrypoint,
      rawInput: call.input,
      resource: call.resource,
      walletHint: wallet as string | undefined,
      payment,
      walletProof: call.walletProof,
      paymentIdentifier: payment ? call.payment!.identify(payment) : null,
      requestId: call.requestId,
    });
    // A payment that is no payment at all is answered once the input itself is known to be valid.
    if (undecodable && outcome.kind === 'challenge') {
      throw new PaymentInvalid(undecodable.message, { ...undecodable.details, paymentRequired: challengeDetails(outcome) });
    }
    return { outcome, payer: payment ? payerOf(payment) : null };
  } catch (e) {
    if (call.payment) logRefusal(deps.logger, call, payment, e);
    throw e;
  }
}

/** A 402's `details`: the PaymentRequired object, and why a Sign-In-With-X proof was not taken. */
export function challengeDetails(outcome: Outcome<'challenge'>): Record<string, unknown> {
  return { ...outcome.paymentRequired, ...(outcome.siwx ? { siwx: outcome.siwx } : {}) };
}

/** An operator sees every refused payment, by request id — never the signature itself. */
function logRefusal(logger: Logger, call: PaidCall, payment: PaymentPayload | undefined, e: unknown): void {
  if (!isRefusal(e)) return; // logged as an error elsewhere
  const from = (payment?.payload as { authorization?: { from?: unknown } } | undefined)?.authorization?.from;
  logger.info('payment refused; nothing charged', {
    requestId: call.requestId,
    ...call.logAs,
    code: e.code,
    reason: e.details?.reason,
    ...(typeof from === 'string' ? { payer: from } : {}),
    ...(payment?.accepted?.network ? { network: payment.accepted.network } : {}),
  });
}

function payerOf(payment: PaymentPayload): { payer: string; network: string } | null {
  const from = (payment.payload as { authorization?: { from?: unknown } } | undefined)?.authorization?.from;
  const network = payment.accepted?.network;
  return typeof from === 'string' && typeof network === 'string' ? { network, payer: from } : null;
}

/** The payment with the declared extensions added where the client did not send them (theirs win). */
function withDeclared(payment: PaymentPayload, declared: Record<string, unknown>): PaymentPayload {
  const missing = Object.entries(declared).filter(([key]) => !(payment.extensions && key in payment.extensions));
  return missing.length === 0 ? payment : { ...payment, extensions: { ...Object.fromEntries(missing), ...payment.extensions } };
}
