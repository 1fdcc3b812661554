/**
 * The x402 payment lifecycle of SPEC §8, generic over the paid entrypoints:
 *
 *   prepare (rules, price) → 402 | verify → claim (network, payer, nonce) → re-check as payer
 *   → SETTLING → settle (no transaction open) → one transaction: apply + APPLIED + response
 *
 * Nothing is charged for a request that is refused before settlement; a settled payment whose
 * operation can no longer be applied is REFUNDED with a payout; an unknown settlement outcome
 * answers 202 and stays SETTLING for the reconciler. Every final answer is stored with the
 * payment, so the same signature for the same request always gets the same response.
 */
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import {
  DomainError,
  FacilitatorError,
  InsufficientFunds,
  NetworkDetectionUnavailable,
  NetworkMismatch,
  PaymentAlreadyUsed,
  PaymentInvalid,
  PaymentRequired,
  TokenNetworkMismatch,
  type ErrorDetails,
} from '../../domain/errors.js';
import { ALL_NETWORKS, isNetwork, type Network } from '../../domain/network.js';
import { transitionPayment, type Payment, type PaymentState } from '../../domain/payment.js';
import { newPayout } from '../../domain/payout.js';
import {
  SettlementIndeterminate,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type ResourceInfo,
  type SettleResult,
} from '../../ports/facilitator.js';
import type { Logger } from '../../ports/logger.js';
import type { NetworkDetector } from '../../ports/network-detector.js';
import type { StoredResponse } from '../../ports/payment-store.js';
import type { AppDeps } from '../deps.js';
import type { Caller, AnyEntrypoint, Prepared } from '../entrypoints.js';
import { errorEnvelope, statusOf, successEnvelope } from '../error-status.js';
import type { Metrics } from '../metrics.js';
import { PaymentAlreadyApplied } from '../paid.js';
import { payoutView } from '../views.js';
import { readAuthorization } from './exact-authorization.js';
import { matchRequirements, paymentRequired, X402_VERSION, type PaymentRequiredObject } from './requirements.js';

export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';

export interface PaymentFlowDeps extends AppDeps {
  facilitator: Facilitator;
  detector: NetworkDetector;
  logger: Logger;
  metrics: Metrics;
  /** When detection cannot answer: fall back to the payment's network, or refuse (503). */
  detectionFailClosed: boolean;
  /** How long a duplicate request waits for the first one's answer before a 202. */
  replayWaitMs: number;
  /** Test-only seams to simulate a crash at a precise step. */
  hooks?: { afterSettle?: (payment: Payment) => Promise<void> };
}

export interface PaidRequest {
  entrypoint: AnyEntrypoint;
  /** The raw input (body or body.input), validated by the entrypoint. */
  rawInput: unknown;
  resource: ResourceInfo;
  walletHint?: string | undefined;
  /** The decoded PAYMENT-SIGNATURE, or undefined when the request carries none. */
  payment?: PaymentPayload | undefined;
}

export type PaidResponse = StoredResponse;

export class PaymentFlow {
  constructor(private readonly deps: PaymentFlowDeps) {}

  async handle(req: PaidRequest): Promise<PaidResponse> {
    const ep = req.entrypoint;
    const input = ep.parse(req.rawInput);
    const requestHash = hashRequest(ep.name, input);

    if (!req.payment) {
      const hinted = req.walletHint ? await this.callerFromHint(req.walletHint) : undefined;
      const prepared: Prepared = await ep.prepare(this.deps, input, hinted);
      const networks = prepared.network ? [prepared.network] : hinted ? [hinted.network] : ALL_NETWORKS;
      throw new PaymentRequired(this.required(req.resource, networks, prepared.amount) as unknown as ErrorDetails);
    }

    // The payment names its payer; the rules are checked as that payer before anything is verified.
    const payload = req.payment;
    const network = payload.accepted?.network;
    if (payload.x402Version !== X402_VERSION || !isNetwork(network)) {
      const prepared = await ep.prepare(this.deps, input);
      throw this.invalid(req, prepared, 'unsupported_payment', 'The payment is not an x402 v2 payment on a supported network.');
    }
    const auth = readAuthorization(payload.payload);
    const payer = getAddress(auth.from);

    const signatureHash = sha256(auth.signature);
    const existing = await this.deps.uow.read((s) => s.payments.findByNonce(network, payer, auth.nonce));
    if (existing) return this.replay(existing, requestHash, signatureHash);

    const detected = await this.detect(payer, network);
    let prepared: Prepared;
    try {
      prepared = await ep.prepare(this.deps, input, { wallet: payer, network: detected });
    } catch (e) {
      if (e instanceof TokenNetworkMismatch && detected !== network) {
        // The wallet belongs to the other environment than the token: the wallet's rule speaks first.
        throw new NetworkMismatch(detected, network);
      }
      throw e;
    }
    const accepts = this.required(req.resource, prepared.network ? [prepared.network] : [detected], prepared.amount);
    if (detected !== network) {
      throw new NetworkMismatch(detected, network, { paymentRequired: accepts });
    }
    const requirements = matchRequirements(accepts.accepts, payload.accepted);
    if (!requirements) {
      const wrongAmount = payload.accepted?.amount !== prepared.amount.toString();
      throw this.invalid(
        req,
        prepared,
        wrongAmount ? 'invalid_amount' : 'requirements_mismatch',
        wrongAmount
          ? `The payment must carry exactly the price, ${prepared.amount} USDC units.`
          : 'The payment does not match the requirements of this request (asset, recipient or scheme).',
      );
    }
    // The signed authorization itself must move exactly the price to the treasury, whatever the
    // payload claims to have accepted (defence in depth: the facilitator checks it too).
    if (auth.value !== prepared.amount || auth.to.toLowerCase() !== requirements.payTo.toLowerCase()) {
      throw this.invalid(req, prepared, 'authorization_mismatch', 'The signed authorization does not pay exactly the price to the treasury.');
    }
    if (payload.resource?.url && !samePath(payload.resource.url, req.resource.url)) {
      throw this.invalid(req, prepared, 'resource_mismatch', 'The payment was made for another resource.');
    }

    const verified = await this.verify(payload, requirements, req, prepared);
    if (getAddress(verified.payer ?? payer) !== payer) {
      throw this.invalid(req, prepared, 'payer_mismatch', 'The facilitator recovered another payer.');
    }

    const now = this.deps.clock.now();
    const payment: Payment = {
      paymentId: this.deps.ids.next('pay'),
      network,
      payer,
      nonce: auth.nonce,
      amount: prepared.amount,
      resource: `${ep.name}`,
      requestHash,
      signatureHash,
      input: req.rawInput,
      state: 'VERIFIED',
      settlementTx: null,
      validBefore: auth.validBefore,
      createdAt: now,
      updatedAt: now,
    };
    const claim = await this.deps.uow.read((s) => s.payments.claim(payment));
    if (!claim.claimed) return this.replay(claim.existing, requestHash, signatureHash);

    const caller: Caller = { wallet: payer, network };
    let final: Prepared;
    try {
      // Again, now that the payer is proven and the nonce is ours: nothing may have changed.
      final = await ep.prepare(this.deps, input, caller);
      if (final.amount !== prepared.amount) {
        throw new PaymentInvalid('The price changed while the payment was verified; request a new price.', {
          reason: 'price_changed',
        });
      }
    } catch (e) {
      // Anything but a business refusal (a database outage) leaves the payment VERIFIED, never
      // settled; the reconciler closes it.
      if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
      return this.finish(payment, 'REJECTED', this.errorResponse(e));
    }

    const settling = await this.move(payment, 'SETTLING');
    let settled: SettleResult;
    try {
      settled = await this.deps.facilitator.settle(payload, requirements);
    } catch (e) {
      // Only a facilitator that says it settled nothing makes the payment FAILED. Anything else —
      // a timeout, a dropped connection, an unexpected error — may have moved the money: the
      // payment stays SETTLING and the reconciler asks the chain.
      if (e instanceof FacilitatorError) return this.finish(settling, 'FAILED', this.errorResponse(e));
      this.deps.logger.warn('settlement outcome unknown; left for the reconciler', {
        paymentId: payment.paymentId,
        error: e instanceof SettlementIndeterminate ? e.message : String(e),
      });
      this.deps.metrics.increment('payments.settlement_pending');
      return pendingResponse(payment.paymentId);
    }
    if (!settled.success) {
      const error =
        isInsufficientFunds(settled.errorReason)
          ? new InsufficientFunds('The wallet does not hold enough USDC.', { reason: settled.errorReason })
          : new PaymentInvalid('The payment could not be settled.', { reason: settled.errorReason ?? 'settle_failed' });
      return this.finish(settling, 'FAILED', this.errorResponse(error, accepts));
    }
    const done = await this.move(settling, 'SETTLED', { settlementTx: settled.transaction });
    await this.deps.hooks?.afterSettle?.(done);
    return this.apply(done, ep, input, final, caller, settled);
  }

  /**
   * Applies a SETTLED payment's operation, or refunds it when the operation is refused now.
   * Used by the request that settled it and by the reconciler after a crash or a timeout.
   */
  async apply(
    payment: Payment,
    ep: AnyEntrypoint,
    input: unknown,
    prepared: Prepared,
    caller: Caller,
    settled: Pick<SettleResult, 'transaction' | 'network' | 'payer'>,
  ): Promise<PaidResponse> {
    const headers = { [PAYMENT_RESPONSE_HEADER]: encodeHeader({ success: true, ...settled }) };
    let response: PaidResponse | undefined;
    try {
      await ep.execute(this.deps, input, prepared, caller, {
        payment,
        onApplied: async (stores, result) => {
          response = { status: ep.successStatus, body: successEnvelope(ep.operation, result), headers };
          await stores.payments.saveResponse(payment.paymentId, response);
        },
      });
      this.deps.metrics.increment('payments.applied');
      return response!;
    } catch (e) {
      if (e instanceof PaymentAlreadyApplied) return this.replay(payment, payment.requestHash, payment.signatureHash);
      if (e instanceof DomainError && e.code !== 'INTERNAL_ERROR') return this.refund(payment, e, headers);
      // A crash while applying: the payment stays SETTLED and the reconciler finishes it.
      this.deps.logger.error('applying a settled payment failed; left for the reconciler', {
        paymentId: payment.paymentId,
        error: e instanceof Error ? e.message : String(e),
      });
      return pendingResponse(payment.paymentId);
    }
  }

  /** The operation was refused after the money moved: give it back, in one transaction. */
  async refund(payment: Payment, error: DomainError, headers: Record<string, string>): Promise<PaidResponse> {
    const now = this.deps.clock.now();
    return this.deps.uow.transaction(async (stores) => {
      const refunded = transitionPayment(payment, 'REFUNDED', now);
      if (!(await stores.payments.update(refunded, 'SETTLED'))) throw new PaymentAlreadyApplied(payment.paymentId);
      const payout = await stores.payouts.enqueue(
        newPayout({
          payoutId: this.deps.ids.next('pout'),
          network: payment.network,
          wallet: payment.payer,
          amount: payment.amount,
          reason: 'refund',
          sourceId: payment.paymentId,
          now,
        }),
      );
      const response: PaidResponse = {
        status: statusOf(error.code),
        body: errorEnvelope(error.code, `${error.message} The payment was settled and is refunded.`, {
          ...(error.details ?? {}),
          paymentId: payment.paymentId,
          refund: payoutView(payout),
        }),
        headers,
      };
      await stores.payments.saveResponse(payment.paymentId, response);
      this.deps.metrics.increment('payments.refunded');
      return response;
    });
  }

  /**
   * The stored answer for a payment already seen; waits briefly for one still in flight. Only
   * the very same signed authorization gets it: another signature for the same nonce is not a
   * replay but an invalid payment, and learns nothing.
   */
  private async replay(existing: Payment, requestHash: string, signatureHash: string): Promise<PaidResponse> {
    if (existing.signatureHash !== signatureHash) {
      throw new PaymentInvalid('This authorization nonce was already used with another signature.', { reason: 'nonce_already_used' });
    }
    if (existing.requestHash !== requestHash) throw new PaymentAlreadyUsed(existing.paymentId);
    const deadline = Date.now() + this.deps.replayWaitMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      const stored = await this.deps.uow.read((s) => s.payments.getResponse(existing.paymentId));
      if (stored) return stored;
      if (Date.now() >= deadline) return pendingResponse(existing.paymentId);
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  private async finish(payment: Payment, to: PaymentState, response: PaidResponse): Promise<PaidResponse> {
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async (stores) => {
      if (!(await stores.payments.update(transitionPayment(payment, to, now), payment.state))) {
        throw new PaymentAlreadyApplied(payment.paymentId);
      }
      await stores.payments.saveResponse(payment.paymentId, response);
    });
    return response;
  }

  private async move(payment: Payment, to: PaymentState, patch: { settlementTx?: string } = {}): Promise<Payment> {
    const next = transitionPayment(payment, to, this.deps.clock.now(), patch);
    const ok = await this.deps.uow.read((s) => s.payments.update(next, payment.state));
    if (!ok) throw new PaymentAlreadyApplied(payment.paymentId);
    return next;
  }

  private async verify(payload: PaymentPayload, requirements: PaymentRequirements, req: PaidRequest, prepared: Prepared) {
    const result = await this.deps.facilitator.verify(payload, requirements);
    if (result.isValid) return result;
    if (isInsufficientFunds(result.invalidReason)) {
      throw new InsufficientFunds('The wallet does not hold enough USDC for this payment.', {
        reason: result.invalidReason,
        paymentRequired: this.requiredFor(req, prepared),
      });
    }
    throw this.invalid(req, prepared, result.invalidReason ?? 'invalid_payment', result.invalidMessage ?? 'The payment did not verify.');
  }

  private invalid(req: PaidRequest, prepared: Prepared, reason: string, message: string): PaymentInvalid {
    return new PaymentInvalid(message, { reason, paymentRequired: this.requiredFor(req, prepared, message) });
  }

  private requiredFor(req: PaidRequest, prepared: Prepared, error?: string): PaymentRequiredObject {
    const hint = req.payment?.accepted?.network;
    const networks = prepared.network ? [prepared.network] : isNetwork(hint) ? [hint] : ALL_NETWORKS;
    return this.required(req.resource, networks, prepared.amount, error);
  }

  private required(resource: ResourceInfo, networks: readonly Network[], amount: bigint, error?: string) {
    return paymentRequired(resource, networks, amount, this.deps.settings.payTo, error);
  }

  private errorResponse(e: unknown, accepts?: PaymentRequiredObject): PaidResponse {
    const error = e instanceof DomainError ? e : new FacilitatorError('The facilitator failed.');
    const details = accepts ? { ...(error.details ?? {}), paymentRequired: accepts } : error.details;
    return { status: statusOf(error.code), body: errorEnvelope(error.code, error.message, details), headers: {} };
  }

  private async callerFromHint(hint: string): Promise<Caller | undefined> {
    const wallet = getAddress(hint);
    try {
      const d = await this.deps.detector.detect(wallet);
      return { wallet, network: d.network };
    } catch (e) {
      this.detectionFailed(wallet, e);
      return undefined; // without a network, the 402 offers both
    }
  }

  /** The payer's network by its history; on failure the payment's own network, or 503 when configured. */
  private async detect(payer: string, paymentNetwork: Network): Promise<Network> {
    try {
      return (await this.deps.detector.detect(payer)).network;
    } catch (e) {
      this.detectionFailed(payer, e);
      return paymentNetwork;
    }
  }

  private detectionFailed(wallet: string, e: unknown): void {
    this.deps.metrics.increment('network_detection.failures');
    this.deps.logger.warn('network detection failed', {
      wallet,
      error: e instanceof Error ? e.message : String(e),
      failClosed: this.deps.detectionFailClosed,
    });
    if (this.deps.detectionFailClosed) throw new NetworkDetectionUnavailable();
    this.deps.metrics.increment('network_detection.fallbacks');
  }
}

/** The fake's reason and the official EVM facilitator's ("invalid_exact_evm_insufficient_balance"). */
function isInsufficientFunds(reason: string | undefined): boolean {
  return reason !== undefined && /insufficient_(funds|balance)/.test(reason);
}

export function pendingResponse(paymentId: string): PaidResponse {
  return { status: 202, body: successEnvelope('payment_pending', { status: 'pending', paymentId }), headers: {} };
}

/** sha256 over the entrypoint and its normalised input: the request a payment is bound to. */
export function hashRequest(entrypoint: string, input: unknown): string {
  return sha256(`${entrypoint}\n${canonicalJson(input)}`);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    return v;
  });
}

function samePath(a: string, b: string): boolean {
  const path = (u: string) => {
    try {
      return new URL(u, 'http://x').pathname.replace(/\/invoke$/, '');
    } catch {
      return u;
    }
  };
  return path(a) === path(b);
}

function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}
