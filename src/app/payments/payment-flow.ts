/**
 * The x402 payment lifecycle of SPEC §8, generic over the paid entrypoints. `handle` is the
 * sequence; each step is a method below.
 *
 *   no payment ─▶ wallet proof (SIWx)? ─▶ access granted? ─▶ 402 (price and requirements)
 *   payment ─▶ admit (decode, replay?, payment identifier?, network, rules and price as the payer,
 *              binding, verify)
 *           ─▶ claim (network, payer, nonce; and the payment identifier) ─▶ recheck ─▶ settle
 *           ─▶ apply with a signed receipt (or refund)
 *
 * THE RULE. Until the nonce is claimed, a refusal is thrown: nothing is stored and nothing is
 * charged. From the claim on, every answer is stored with the payment and returned, so the same
 * signature for the same request always gets the same response.
 *
 * THE FAILED RULE. Only a settlement that answers success moves the payment on at once. Any
 * other outcome — a timeout, a pending transaction, an error, even "failed" — may still move the
 * money (the signed authorization can be mined until `validBefore`), so the payment stays
 * SETTLING, the caller gets 202 with its id, and the reconciler asks the chain: used → applied
 * (or refunded); unused and unusable → FAILED, nothing charged.
 */
import { getAddress } from 'viem';
import {
  DomainError,
  InsufficientFunds,
  NetworkDetectionUnavailable,
  NetworkMismatch,
  PaymentAlreadyUsed,
  PaymentInvalid,
  PaymentRequired,
  TokenNetworkMismatch,
  type ErrorDetails,
} from '../../domain/errors.js';
import { ALL_NETWORKS, assetAt, isNetwork, type Network } from '../../domain/network.js';
import { transitionPayment, type Payment, type PaymentState } from '../../domain/payment.js';
import { formatUsdPrice } from '../../domain/usd-price.js';
import { newPayout } from '../../domain/payout.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { ReceiptSigner } from '../../ports/receipt-signer.js';
import type { WalletProofVerifier } from '../../ports/wallet-proof-verifier.js';
import type { Facilitator, PaymentPayload, PaymentRequirements, ResourceInfo, SettleResult } from '../../ports/facilitator.js';
import type { Logger } from '../../ports/logger.js';
import type { NetworkDetector } from '../../ports/network-detector.js';
import type { SettlementReceipt, StoredResponse } from '../../ports/payment-store.js';
import type { AppDeps } from '../deps.js';
import type { AnyEntrypoint, Caller, Prepared } from '../entrypoints.js';
import { errorEnvelope, statusOfError, successEnvelope } from '../error-status.js';
import type { Metrics } from '../metrics.js';
import { PaymentAlreadyApplied } from '../paid.js';
import { payoutView } from '../views.js';
import { claimPayment, matchPaymentIdentifier, type PaymentIdentifierMatch } from '../extensions/payment-identifier.js';
import { withReceipt } from '../extensions/receipts.js';
import { proveWallet, siwxDetails, type WalletProof } from '../extensions/wallet-proof.js';
import { readAuthorization, type ExactAuthorization } from './exact-authorization.js';
import { PAYMENT_REASONS } from './payment-reasons.js';
import { hashRequest, sha256 } from './request-hash.js';
import { amountAt, heldQuoteIsLive, offerFor, offersFor, type Offer } from './offers.js';
import { matchRequirements, X402_VERSION, type PaymentRequiredObject } from './requirements.js';
import { sameResource } from './resource.js';

export interface PaymentFlowDeps extends AppDeps {
  facilitator: Facilitator;
  detector: NetworkDetector;
  logger: Logger;
  metrics: Metrics;
  /** When detection cannot answer: fall back to the payment's network, or refuse (503). */
  detectionFailClosed: boolean;
  /** How long a duplicate request waits for the first one's answer before a 202. */
  replayWaitMs: number;
  /** Sign-In-With-X proofs of unpaid requests (#17.1). */
  walletProofs: WalletProofVerifier;
  /** Signs the receipt of every settlement (#17.3); null: no receipts. */
  receiptSigner: ReceiptSigner | null;
  /** How long paid access an entrypoint grants (`grantsAccess`) lasts: INFO_ACCESS_SECONDS. */
  accessGrantSeconds: number;
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
  /** The SIGN-IN-WITH-X header: read only when the request carries no payment (#17.1). */
  walletProof?: string | undefined;
  /** The payment's valid `payment-identifier` (#17.2); a malformed one is dropped by the adapter. */
  paymentIdentifier?: string | null | undefined;
  /** For the operator's log lines. */
  requestId?: string | undefined;
}

export type PaidResponse = StoredResponse;

/**
 * What `handle` answers, and whether the payment was verified by the facilitator in this
 * request — only such a request is a paid one (SPEC §11: it is not rate limited).
 */
export interface PaidOutcome {
  response: PaidResponse;
  verified: boolean;
}

/** A payment that passed every check before the claim: what the rest of the flow works on. */
interface Admitted {
  offer: Offer;
  entrypoint: AnyEntrypoint;
  payment: Payment;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  prepared: Prepared;
  caller: Caller;
  /** What the signed receipt names. */
  resourceUrl: string;
  paymentIdentifier: string | null;
}

export class PaymentFlow {
  constructor(private readonly deps: PaymentFlowDeps) {}

  async handle(req: PaidRequest): Promise<PaidOutcome> {
    const input = req.entrypoint.parse(req.rawInput);
    const requestHash = hashRequest(req.entrypoint.name, input);
    if (!req.payment) {
      const proof = await this.walletProof(req);
      const granted = proof?.ok ? await this.grantedAccess(req.entrypoint, input, proof.wallet) : null;
      if (granted) return { response: granted, verified: false };
      throw await this.paymentRequired(req, input, requestHash, proof);
    }

    // Before the claim: every refusal is thrown, nothing is stored, nothing is charged.
    const admitted = await this.admit(req, req.payment, input, requestHash);
    if ('replay' in admitted) return { response: admitted.replay, verified: false };
    const claim = await claimPayment(this.deps.uow, admitted.payment, admitted.paymentIdentifier);
    if (!claim.claimed) {
      const answer = 'identifier' in claim ? this.identifiedAnswer(claim.identifier) : this.replay(claim.existing, requestHash, admitted.payment.signatureHash);
      return { response: await answer, verified: true };
    }

    // From the claim on: every answer is stored with the payment.
    const refused = await this.recheck(admitted, input);
    if (refused) return { response: refused, verified: true };
    return { response: await this.settleAndApply(admitted, input), verified: true };
  }

  /** The unpaid request: the rules are checked and the price set, then 402 with the requirements. */
  private async paymentRequired(req: PaidRequest, input: unknown, requestHash: string, proof?: WalletProof): Promise<PaymentRequired> {
    // A proven wallet is the protocol-native hint: it wins over X-Wallet-Address.
    const wallet = proof?.ok ? proof.wallet : req.walletHint;
    const hinted = wallet ? await this.callerFromHint(wallet) : undefined;
    const prepared = await req.entrypoint.prepare(this.deps, input, hinted);
    const networks = prepared.network ? [prepared.network] : hinted ? [hinted.network] : ALL_NETWORKS;
    const required = await this.required(req.resource, requestHash, networks, prepared.amount);
    return new PaymentRequired({ ...required, ...(proof && !proof.ok ? { siwx: siwxDetails(proof) } : {}) } as unknown as ErrorDetails);
  }

  /** The SIWx step: the wallet an unpaid request proves, or why its proof is not taken; never a refusal. */
  private async walletProof(req: PaidRequest): Promise<WalletProof | undefined> {
    if (!req.walletProof) return undefined;
    const proof = await proveWallet(this.deps, req.walletProof);
    this.deps.metrics.increment(proof.ok ? 'siwx.accepted' : 'siwx.ignored');
    return proof;
  }

  /** The access-grant step: an entrypoint the proven wallet paid for lately answers without a payment. */
  private async grantedAccess(ep: AnyEntrypoint, input: unknown, wallet: string): Promise<PaidResponse | null> {
    if (!ep.grantsAccess) return null;
    const until = await this.deps.uow.run((s) => s.accessGrants.validUntil(wallet, ep.name, this.deps.clock.now()));
    if (!until) return null;
    const result: unknown = await ep.grantsAccess.serve(this.deps, input);
    this.deps.metrics.increment('access_grants.used');
    return { status: ep.successStatus, body: successEnvelope(ep.operation, result), headers: { 'Access-Granted-Until': until.toISOString() } };
  }

  /** Records the access a paid entrypoint leaves its payer, in the transaction that applies it. */
  private async grantAccess(stores: Stores, ep: AnyEntrypoint, payment: Payment): Promise<void> {
    if (!ep.grantsAccess || this.deps.accessGrantSeconds <= 0) return;
    const until = new Date(this.deps.clock.now().getTime() + this.deps.accessGrantSeconds * 1000);
    await stores.accessGrants.grant(payment.payer, ep.name, until);
  }

  /**
   * The payment-identifier step (#17.2), before any verification: an id seen for this very
   * request (same payer, same input) answers what its payment answered — nothing is verified,
   * claimed or charged again; an id seen for another request is 409.
   */
  private async knownIdentifier(req: PaidRequest, payer: string, requestHash: string): Promise<PaidResponse | null> {
    if (!req.paymentIdentifier) return null;
    const match = await matchPaymentIdentifier(this.deps.uow, { id: req.paymentIdentifier, payer, requestHash });
    return match.kind === 'new' ? null : this.identifiedAnswer(match);
  }

  private async identifiedAnswer(match: Exclude<PaymentIdentifierMatch, { kind: 'new' }>): Promise<PaidResponse> {
    if (match.kind === 'conflict') throw new PaymentAlreadyUsed(match.paymentId);
    this.deps.metrics.increment('payment_identifiers.replayed');
    return match.response ?? this.storedAnswer(match.paymentId);
  }

  /**
   * Everything checked before the nonce is claimed: the payload, a replay, the payer's network,
   * the operation's rules as the payer, the exact price, recipient and resource, and the
   * facilitator's verification. Returns the payment to claim, or the stored answer of a replay.
   */
  private async admit(
    req: PaidRequest,
    payload: PaymentPayload,
    input: unknown,
    requestHash: string,
  ): Promise<Admitted | { replay: PaidResponse }> {
    const ep = req.entrypoint;
    const network = payload.accepted?.network;
    if (payload.x402Version !== X402_VERSION || !isNetwork(network)) {
      const prepared = await ep.prepare(this.deps, input);
      throw await this.invalid(req, requestHash, prepared, PAYMENT_REASONS.unsupportedPayment, 'The payment is not an x402 v2 payment on a supported network.');
    }
    const auth = readAuthorization(payload.payload);
    const payer = getAddress(auth.from);
    const signatureHash = sha256(auth.signature);
    const existing = await this.deps.uow.run((s) => s.payments.findByNonce(network, payer, auth.nonce));
    if (existing) return { replay: await this.replay(existing, requestHash, signatureHash) };
    const identified = await this.knownIdentifier(req, payer, requestHash);
    if (identified) return { replay: identified };

    const detected = await this.detect(payer, network);
    const prepared = await this.prepareAsPayer(ep, input, payer, detected, network);
    const offered = prepared.network ?? detected;
    // The 402 of a mismatch offers only the wallet's network, so a client that pays the first
    // offer of any 402 succeeds on its next try.
    if (detected !== network) {
      throw new NetworkMismatch(detected, network, { paymentRequired: await this.required(req.resource, requestHash, [offered], prepared.amount) });
    }
    // Only the paid asset's offer is priced here: a USDC payment never waits on (or fails for) EURC's price.
    const asset = typeof payload.accepted?.asset === 'string' ? assetAt(network, payload.accepted.asset) : undefined;
    const offer = asset && offered === network ? await offerFor(this.deps, requestHash, network, asset, prepared.amount) : undefined;
    const requirements = await this.bind(req, requestHash, payload, auth, offer, prepared);
    await this.heldQuoteLive(req, requestHash, prepared, offer!);
    const verified = await this.verify(payload, auth, requirements, req, requestHash, prepared, offer!);
    if (getAddress(verified.payer ?? payer) !== payer) {
      throw await this.invalid(req, requestHash, prepared, PAYMENT_REASONS.payerMismatch, 'The facilitator recovered another payer.');
    }
    const now = this.deps.clock.now();
    return {
      entrypoint: ep,
      offer: offer!,
      payload,
      requirements,
      prepared,
      caller: { wallet: payer, network },
      resourceUrl: req.resource.url,
      paymentIdentifier: req.paymentIdentifier ?? null,
      payment: {
        paymentId: this.deps.ids.next('pay'),
        network,
        payer,
        nonce: auth.nonce,
        asset: offer!.asset,
        amount: offer!.amount,
        usdValue: offer!.usdValue,
        quoteId: offer!.quote?.quoteId ?? null,
        quotePrice: offer!.quote?.price ?? null,
        resource: ep.name,
        resourceUrl: req.resource.url,
        requestHash,
        signatureHash,
        input: req.rawInput,
        state: 'VERIFIED',
        settlementTx: null,
        validBefore: auth.validBefore,
        createdAt: now,
        updatedAt: now,
      },
    };
  }

  private async prepareAsPayer(ep: AnyEntrypoint, input: unknown, payer: string, detected: Network, network: Network): Promise<Prepared> {
    try {
      return await ep.prepare(this.deps, input, { wallet: payer, network: detected });
    } catch (e) {
      if (e instanceof TokenNetworkMismatch && detected !== network) {
        // The wallet belongs to the other environment than the token: the wallet's rule speaks first.
        throw new NetworkMismatch(detected, network);
      }
      throw e;
    }
  }

  /**
   * The payment must be for exactly this: one of our requirements (price, asset, recipient,
   * scheme), an authorization that itself moves exactly the price to the treasury, and this
   * resource. EIP-3009 does not sign the resource, so `resource` is the binding we can check:
   * a payload without one is refused.
   */
  private async bind(
    req: PaidRequest,
    requestHash: string,
    payload: PaymentPayload,
    auth: ExactAuthorization,
    offer: Offer | undefined,
    prepared: Prepared,
  ): Promise<PaymentRequirements> {
    const requirements = offer ? matchRequirements([offer.requirements], payload.accepted) : undefined;
    if (!offer || !requirements) {
      const wrongAmount = offer !== undefined && payload.accepted?.amount !== offer.amount.toString();
      if (wrongAmount && offer.lapsed && payload.accepted?.amount === amountAt(offer.lapsed, prepared.amount).toString()) {
        throw await this.invalid(
          req,
          requestHash,
          prepared,
          PAYMENT_REASONS.quoteExpired,
          `The ${offer.asset} price held for this request expired at ${offer.lapsed.expiresAt.toISOString()} and the price is another now; nothing was charged. Pay the fresh price in PAYMENT-REQUIRED.`,
        );
      }
      throw await this.invalid(
        req,
        requestHash,
        prepared,
        wrongAmount ? PAYMENT_REASONS.invalidAmount : PAYMENT_REASONS.requirementsMismatch,
        wrongAmount
          ? `The payment must carry exactly the price, ${offer.amount} ${offer.asset} units${offer.quote ? ' at the held quote' : ''}.`
          : 'The payment does not match the requirements of this request (asset, recipient or scheme).',
      );
    }
    // Defence in depth: the facilitator checks the signed values too.
    if (auth.value !== offer.amount || auth.to.toLowerCase() !== requirements.payTo.toLowerCase()) {
      throw await this.invalid(req, requestHash, prepared, PAYMENT_REASONS.authorizationMismatch, 'The signed authorization does not pay exactly the price to the treasury.');
    }
    const url = payload.resource?.url;
    if (typeof url !== 'string' || url === '') {
      throw await this.invalid(req, requestHash, prepared, PAYMENT_REASONS.resourceMissing, 'The payment does not name the resource it pays for (x402 v2 `resource`).');
    }
    if (!sameResource(url, req.resource.url)) {
      throw await this.invalid(req, requestHash, prepared, PAYMENT_REASONS.resourceMismatch, 'The payment was made for another resource.');
    }
    return requirements;
  }

  /**
   * The rules again, now that the payer is proven and the nonce is ours: nothing may have
   * changed. A business refusal closes the payment REJECTED (never settled); anything else (a
   * database outage) leaves it VERIFIED for the reconciler, which closes it the same way.
   */
  private async recheck(a: Admitted, input: unknown): Promise<PaidResponse | null> {
    try {
      const again = await a.entrypoint.prepare(this.deps, input, a.caller);
      if (again.amount !== a.prepared.amount) {
        throw new PaymentInvalid('The price changed while the payment was verified; request a new price.', {
          reason: PAYMENT_REASONS.priceChanged,
        });
      }
      a.prepared = again;
      return null;
    } catch (e) {
      if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
      this.refused(a.payment, e);
      return this.finish(a.payment, 'REJECTED', this.errorResponse(e));
    }
  }

  /** Settles with no database transaction open, then applies — or answers 202 (the FAILED rule). */
  private async settleAndApply(a: Admitted, input: unknown): Promise<PaidResponse> {
    const settling = await this.move(a.payment, 'SETTLING');
    let settled: SettleResult;
    try {
      settled = await this.deps.facilitator.settle(a.payload, a.requirements);
    } catch (e) {
      return this.pending(settling, PAYMENT_REASONS.settlementUnknown, e instanceof Error ? e.message : String(e));
    }
    if (!settled.success) {
      return this.pending(settling, settled.errorReason ?? PAYMENT_REASONS.settlementUnknown, settled.errorMessage, settled.transaction);
    }
    const done = transitionPayment(settling, 'SETTLED', this.deps.clock.now(), { settlementTx: settled.transaction });
    if (!(await this.deps.uow.run((s) => s.payments.update(done, 'SETTLING')))) {
      // The reconciler found the settlement on chain first and is applying it.
      return this.replay(settling, settling.requestHash, settling.signatureHash);
    }
    await this.deps.hooks?.afterSettle?.(done);
    return this.apply(done, a.entrypoint, input, a.prepared, a.caller, settled, a.resourceUrl);
  }

  /**
   * The settlement did not answer success: the money may or may not move. The payment stays
   * SETTLING (the reconciler decides from the chain); the caller gets 202 with where to look.
   */
  private async pending(payment: Payment, reason: string, message?: string, transaction?: string): Promise<PaidResponse> {
    this.deps.metrics.increment('payments.settlement_pending');
    this.deps.logger.warn('settlement did not confirm; the payment stays SETTLING for the reconciler', {
      paymentId: payment.paymentId,
      payer: payment.payer,
      reason,
      ...(message ? { message: message.split('\n')[0] } : {}),
      ...(transaction ? { transaction } : {}),
    });
    const response = pendingResponse(payment.paymentId, reason);
    await this.deps.uow.run((s) => s.payments.saveResponse(payment.paymentId, response));
    return response;
  }

  /**
   * Applies a SETTLED payment's operation, or refunds it when the operation is refused now.
   * Used by the request that settled it and by the reconciler after a crash or a timeout; the
   * request names its resource, so its answer carries a signed receipt.
   */
  async apply(
    payment: Payment,
    ep: AnyEntrypoint,
    input: unknown,
    prepared: Prepared,
    caller: Caller,
    settled: Pick<SettleResult, 'transaction' | 'network' | 'payer'>,
    resourceUrl?: string,
  ): Promise<PaidResponse> {
    const settlement = await this.receipted(
      { success: true, transaction: settled.transaction, network: settled.network, payer: settled.payer ?? payment.payer },
      resourceUrl,
    );
    let response: PaidResponse | undefined;
    try {
      await ep.execute(this.deps, input, prepared, caller, {
        payment,
        onApplied: async (stores, result) => {
          response = { status: ep.successStatus, body: successEnvelope(ep.operation, result), headers: {}, settlement };
          await stores.payments.saveResponse(payment.paymentId, response);
          await this.grantAccess(stores, ep, payment);
        },
      });
      this.deps.metrics.increment('payments.applied');
      return response!;
    } catch (e) {
      if (e instanceof PaymentAlreadyApplied) return this.replay(payment, payment.requestHash, payment.signatureHash);
      if (e instanceof DomainError && e.code !== 'INTERNAL_ERROR') return this.refund(payment, e, settlement);
      // A crash while applying: the payment stays SETTLED and the reconciler finishes it.
      this.deps.logger.error('applying a settled payment failed; left for the reconciler', {
        paymentId: payment.paymentId,
        error: e instanceof Error ? e.message : String(e),
      });
      return pendingResponse(payment.paymentId, PAYMENT_REASONS.applyPending);
    }
  }

  /**
   * The operation was refused after the money moved (or money moved that should not have):
   * give it back, in one transaction. `from` is the state the payment is in now.
   */
  async refund(payment: Payment, error: DomainError, settlement?: SettlementReceipt, from: PaymentState = 'SETTLED'): Promise<PaidResponse> {
    const now = this.deps.clock.now();
    const response = await this.deps.uow.transaction(async (stores) => {
      const refunded = transitionPayment({ ...payment, state: from }, 'REFUNDED', now);
      if (!(await stores.payments.update(refunded, from))) throw new PaymentAlreadyApplied(payment.paymentId);
      const payout = await stores.payouts.enqueue(
        newPayout({
          payoutId: this.deps.ids.next('pout'),
          network: payment.network,
          wallet: payment.payer,
          asset: payment.asset,
          amount: payment.amount,
          reason: 'refund',
          sourceId: payment.paymentId,
          now,
        }),
      );
      const stored: PaidResponse = {
        status: statusOfError(error),
        body: errorEnvelope(error.code, `${error.message} The payment was settled and is refunded.`, {
          ...(error.details ?? {}),
          paymentId: payment.paymentId,
          refund: payoutView(payout),
        }),
        headers: {},
        ...(settlement ? { settlement } : {}),
      };
      await stores.payments.saveResponse(payment.paymentId, stored);
      return stored;
    });
    this.deps.metrics.increment('payments.refunded');
    this.deps.logger.info('payment refunded', { paymentId: payment.paymentId, payer: payment.payer, code: error.code });
    return response;
  }

  /**
   * The stored answer for a payment already seen; waits briefly for one still in flight. Only
   * the very same signed authorization gets it: another signature for the same nonce is not a
   * replay but an invalid payment, and learns nothing.
   */
  private async replay(existing: Payment, requestHash: string, signatureHash: string): Promise<PaidResponse> {
    if (existing.signatureHash !== signatureHash) {
      throw new PaymentInvalid('This authorization nonce was already used with another signature.', {
        reason: PAYMENT_REASONS.nonceAlreadyUsed,
      });
    }
    if (existing.requestHash !== requestHash) throw new PaymentAlreadyUsed(existing.paymentId);
    return this.storedAnswer(existing.paymentId);
  }

  /** A payment's stored answer; waits briefly for one still in flight, then 202. */
  private async storedAnswer(paymentId: string): Promise<PaidResponse> {
    const deadline = Date.now() + this.deps.replayWaitMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      const stored = await this.deps.uow.run((s) => s.payments.getResponse(paymentId));
      if (stored) return stored;
      if (Date.now() >= deadline) return pendingResponse(paymentId, PAYMENT_REASONS.inFlight);
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** The receipt step (#17.3): the settlement signed for its payer; without one when signing fails. */
  private async receipted(settlement: SettlementReceipt, resourceUrl: string | undefined): Promise<SettlementReceipt> {
    if (!resourceUrl || !this.deps.receiptSigner) return settlement;
    try {
      return withReceipt(settlement, await this.deps.receiptSigner.signReceipt({ resourceUrl, payer: settlement.payer, network: settlement.network, transaction: settlement.transaction }));
    } catch (e) {
      this.deps.logger.warn('the receipt could not be signed; the answer goes out without one', {
        transaction: settlement.transaction,
        error: e instanceof Error ? e.message : String(e),
      });
      return settlement;
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

  private async move(payment: Payment, to: PaymentState): Promise<Payment> {
    const next = transitionPayment(payment, to, this.deps.clock.now());
    const ok = await this.deps.uow.run((s) => s.payments.update(next, payment.state));
    if (!ok) throw new PaymentAlreadyApplied(payment.paymentId);
    return next;
  }

  /**
   * A price held for a 402 (EURC, or USDC below its depeg floor) is honoured only while the live
   * price is within the router's spread bound of it; past it the payment is refused before
   * settlement, the hold is dropped, and the 402 offers the live price.
   */
  private async heldQuoteLive(req: PaidRequest, requestHash: string, prepared: Prepared, offer: Offer): Promise<void> {
    const held = offer.quote;
    if (!held) return;
    const live = await this.deps.usdQuotes.usdPrice(offer.asset, offer.network);
    const bound = this.deps.settings.quoteMaxSpreadBps;
    if (heldQuoteIsLive(held, live.price, bound)) return;
    await this.deps.uow.run((s) => s.assetQuotes.release(held.holdKey, held.quoteId));
    this.deps.metrics.increment('payments.quote_moved');
    throw await this.invalid(
      req,
      requestHash,
      prepared,
      PAYMENT_REASONS.quoteMoved,
      `The ${offer.asset} price held for this request (${formatUsdPrice(held.price)} USD) is more than ${bound} bps from the live price (${formatUsdPrice(live.price)} USD); nothing was charged. Pay the fresh price in PAYMENT-REQUIRED.`,
      { heldPrice: formatUsdPrice(held.price), livePrice: formatUsdPrice(live.price), maxSpreadBps: Number(bound) },
    );
  }

  private async verify(
    payload: PaymentPayload,
    auth: ExactAuthorization,
    requirements: PaymentRequirements,
    req: PaidRequest,
    requestHash: string,
    prepared: Prepared,
    offer: Offer,
  ) {
    const result = await this.deps.facilitator.verify(payload, requirements);
    if (result.isValid) return result;
    if (this.expired(auth, result.invalidReason)) {
      // The facilitator's clock is the one that counts; ours only words the answer.
      const at = auth.validBefore < MAX_DATE_SECONDS ? new Date(Number(auth.validBefore) * 1000).toISOString() : `${auth.validBefore} s`;
      throw await this.invalid(
        req,
        requestHash,
        prepared,
        PAYMENT_REASONS.authorizationExpired,
        `The payment's authorization expired at ${at} (validBefore), or is too close to it to be settled; nothing was charged. Sign a new payment for the price in PAYMENT-REQUIRED.`,
        result.invalidReason ? { facilitatorReason: result.invalidReason } : {},
      );
    }
    if (isInsufficientFunds(result.invalidReason)) {
      throw new InsufficientFunds(`The wallet does not hold enough ${offer.asset} for this payment.`, {
        reason: result.invalidReason,
        paymentRequired: await this.requiredFor(req, requestHash, prepared),
      });
    }
    throw await this.invalid(req, requestHash, prepared, result.invalidReason ?? PAYMENT_REASONS.invalidPayment, result.invalidMessage ?? 'The payment did not verify.');
  }

  /** Whether a refused authorization was refused for its `validBefore`: by the facilitator's reason, or by our clock. */
  private expired(auth: ExactAuthorization, reason: string | undefined): boolean {
    if (reason !== undefined && /valid_before|expired/.test(reason)) return true;
    const now = BigInt(Math.floor(this.deps.clock.now().getTime() / 1000));
    return auth.validBefore < now + SETTLE_MARGIN_SECONDS;
  }

  private async invalid(req: PaidRequest, requestHash: string, prepared: Prepared, reason: string, message: string, extra: ErrorDetails = {}): Promise<PaymentInvalid> {
    return new PaymentInvalid(message, { reason, ...extra, paymentRequired: await this.requiredFor(req, requestHash, prepared, message) });
  }

  private requiredFor(req: PaidRequest, requestHash: string, prepared: Prepared, error?: string): Promise<PaymentRequiredObject> {
    const hint = req.payment?.accepted?.network;
    const networks = prepared.network ? [prepared.network] : isNetwork(hint) ? [hint] : ALL_NETWORKS;
    return this.required(req.resource, requestHash, networks, prepared.amount, error);
  }

  /** The x402 PaymentRequired object: every offer (USDC, then EURC) per network, priced and held. */
  private async required(resource: ResourceInfo, requestHash: string, networks: readonly Network[], usdAmount: bigint, error?: string): Promise<PaymentRequiredObject> {
    const offers = await offersFor(this.deps, requestHash, networks, usdAmount);
    return {
      x402Version: X402_VERSION,
      ...(error === undefined ? {} : { error }),
      resource,
      accepts: offers.map((o) => o.requirements),
    };
  }

  private errorResponse(error: DomainError): PaidResponse {
    return { status: statusOfError(error), body: errorEnvelope(error.code, error.message, error.details), headers: {} };
  }

  private refused(payment: Payment, e: DomainError): void {
    this.deps.logger.info('payment refused after verification; nothing charged', {
      paymentId: payment.paymentId,
      payer: payment.payer,
      code: e.code,
    });
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

/** The official EVM facilitator refuses an authorization valid for less than 6 s more: too late to be mined. */
const SETTLE_MARGIN_SECONDS = 6n;
/** The last second a Date can show. */
const MAX_DATE_SECONDS = 8_640_000_000_000n;

/** The fake's reason and the official EVM facilitator's ("invalid_exact_evm_insufficient_balance"). */
function isInsufficientFunds(reason: string | undefined): boolean {
  return reason !== undefined && /insufficient_(funds|balance)/.test(reason);
}

/** 202: the payment is not final yet; `GET /api/payments/:id` tells when it is. */
export function pendingResponse(paymentId: string, reason: string): PaidResponse {
  return {
    status: 202,
    body: successEnvelope('payment_pending', { status: 'pending', paymentId, reason, statusUrl: `/api/payments/${paymentId}` }),
    headers: { Location: `/api/payments/${paymentId}`, 'Retry-After': '5' },
  };
}
