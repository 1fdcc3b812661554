/**
 * Step 2, admission: everything checked before the nonce is claimed — the payload, a replay (by
 * nonce, then by payment identifier), the payer's network, the operation's rules and price as the
 * payer, the binding to one of our offers and to this resource, and the facilitator's
 * verification. A refusal is thrown with the fresh offers (refusal.ts); nothing is stored or
 * charged, so there is no compensation.
 */
import { checksummed } from '../../kit/address.js';
import { HeldAuthorizationInvalid, NetworkMismatch } from '../../../domain/errors.js';
import { assetAt, isNetwork, type Network } from '../../../domain/network.js';
import type { Payment, PaymentScheme } from '../../../domain/payment.js';
import type { PaymentPayload, PaymentRequirements } from '../../../ports/facilitator.js';
import type { AnyEntrypoint, Caller, Prepared } from '../../kit/catalogue/entrypoint.js';
import { readAuthorization, type ExactAuthorization } from '../exact-authorization.js';
import { paidOffer, type Offer } from '../offers.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import { sha256 } from '../request-hash.js';
import { PAYMENT_X402_VERSIONS, UPTO } from '../requirements.js';
import { readUptoPayment, uptoAuthorization, type UptoPayment } from '../upto/permit2-payment.js';
import { bind, heldQuoteLive } from './binding.js';
import { paymentRequiredFor } from './challenge.js';
import type { PaidRequest, PipelineDeps } from './deps.js';
import type { Outcome } from './outcome.js';
import { payerNetwork } from './payer-network.js';
import { priceAsPayer, priceForAnyone } from './pricing.js';
import { refusalFor } from './refusal.js';
import { knownIdentifier, replay } from './stored-answer.js';
import { verify } from './verification.js';
import { voucherAuthorization, type VoucherCharge } from '../batch/voucher-charge.js';
import { BATCH_SETTLEMENT, readVoucherPayment, type VoucherPayment } from '../batch/voucher-payment.js';
import { verifyVoucher } from '../batch/voucher-verification.js';

/** A payment that passed every check before the claim: what the later steps work on. */
export interface Admitted {
  kind: 'admitted';
  entrypoint: AnyEntrypoint;
  input: unknown;
  /** VERIFIED, not stored yet: the claim stores it. */
  payment: Payment;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  /** The priced plan (pricing.ts), asked once as the payer: what is bound, verified and carried on. */
  prepared: Prepared;
  caller: Caller;
  paymentIdentifier: string | null;
  /** A batch-settlement payment's voucher and its channel as admission saw it: the settlement charges the channel. */
  voucher: VoucherCharge | null;
}

export async function admit(
  deps: PipelineDeps,
  req: PaidRequest,
  payload: PaymentPayload,
  input: unknown,
  requestHash: string,
): Promise<Admitted | Outcome<'replayed'>> {
  const ep = req.entrypoint;
  const network = payload.accepted?.network;
  if (!PAYMENT_X402_VERSIONS.includes(payload.x402Version) || !isNetwork(network)) {
    const prepared = await priceForAnyone(deps, ep, input);
    const refusal = refusalFor(deps, req, requestHash, prepared);
    throw await refusal.invalid(PAYMENT_REASONS.unsupportedPayment, 'The payment is not an x402 v2 (or v1) payment on a supported network.');
  }
  const { scheme, voucher, upto, auth } = readSigned(payload, requestHash);
  const payer = checksummed(auth.from);
  const signatureHash = sha256(auth.signature);
  // The same payment (or payment identifier) seen before is answered as it was, charged once.
  const seenBefore = async (): Promise<Outcome<'replayed'> | null> => {
    const existing = await deps.uow.run((s) => s.payments.findByNonce(network, payer, auth.nonce));
    if (existing) return { kind: 'replayed', response: await replay(deps, existing, requestHash, signatureHash), verified: false, paymentId: existing.paymentId };
    const identified = await knownIdentifier(deps, req.paymentIdentifier, payer, requestHash);
    return identified ? { kind: 'replayed', response: identified, verified: false } : null;
  };
  const seen = await seenBefore();
  if (seen) return seen;

  // Settling needs the payment's chain and the facilitator: 503 now, rather than a refusal they caused.
  await deps.availability?.usable([network]);
  const detected = (await payerNetwork(deps, payer)) ?? network;
  // What the payment pays with, as it says (bound below): a held authorization of that asset must leave room for it.
  const asset = typeof payload.accepted?.asset === 'string' ? assetAt(network, payload.accepted.asset) : undefined;
  const amount = paidAmount(payload);
  let prepared: Prepared;
  try {
    prepared = await priceAsPayer(deps, ep, input, { wallet: payer, network: detected, ...(asset && amount !== null ? { fee: { asset, amount } } : {}) }, network);
  } catch (e) {
    // A copy of this very payment that came in while it was being verified has claimed it and
    // holds its authorization (decision 0067): this copy gets that payment's answer, not `used`
    // — which would send its client to sign a fresh authorization for a second order.
    if (e instanceof HeldAuthorizationInvalid && e.details?.reason === 'used') {
      const replayed = await seenBefore();
      if (replayed) return replayed;
    }
    throw e;
  }
  const offered = prepared.network ?? detected;
  // The 402 of a mismatch offers only the wallet's network, so a client that pays the first
  // offer of any 402 succeeds on its next try.
  if (detected !== network) {
    await deps.availability?.usable([offered]); // a 402 for a network that cannot take the payment would be a lie: 503
    throw new NetworkMismatch(detected, network, { paymentRequired: await paymentRequiredFor(deps, req.resource, requestHash, [offered], prepared) });
  }
  const refusal = refusalFor(deps, req, requestHash, prepared);
  // Only the paid asset's offer is priced here: a USDC payment never waits on (or fails for) EURC's price.
  const candidate = asset && offered === network ? await paidOffer(deps, requestHash, network, asset, prepared, amount) : undefined;
  const { offer, requirements } = await bind(refusal, prepared, payload, voucher ? { voucher: true } : upto ? { upto } : { exact: auth }, candidate, req.resource.url);
  await heldQuoteLive(deps, refusal, offer);
  const channel = voucher ? await verifyVoucher(deps, refusal, voucher, { network, asset: offer.asset, payload, requirements, price: offer.amount }) : null;
  if (!voucher) {
    const verified = await verify(deps, refusal, payload, auth, requirements, offer);
    if (checksummed(verified.payer ?? payer) !== payer) {
      throw await refusal.invalid(PAYMENT_REASONS.payerMismatch, 'The facilitator recovered another payer.');
    }
  }
  return {
    kind: 'admitted',
    entrypoint: ep,
    input,
    payload,
    requirements,
    prepared,
    caller: { wallet: payer, network, fee: { asset: offer.asset, amount: offer.amount } },
    paymentIdentifier: req.paymentIdentifier ?? null,
    voucher: voucher && channel ? { voucher, channel } : null,
    payment: newPayment(deps, req, requestHash, { network, payer, signatureHash, auth, offer, scheme }),
  };
}

/**
 * What the payment signs, read by its scheme, as the authorization it is claimed by: an EIP-3009
 * authorization (exact); a voucher, under a nonce of its own (batch/voucher-charge.ts); a Permit2
 * transfer, under its Permit2 nonce (upto/permit2-payment.ts).
 */
function readSigned(payload: PaymentPayload, requestHash: string): { scheme: PaymentScheme; voucher: VoucherPayment | null; upto: UptoPayment | null; auth: ExactAuthorization } {
  const scheme = payload.accepted?.scheme;
  if (scheme === BATCH_SETTLEMENT) {
    const voucher = readVoucherPayment(payload.payload);
    return { scheme: BATCH_SETTLEMENT, voucher, upto: null, auth: voucherAuthorization(voucher, requestHash) };
  }
  if (scheme === UPTO) {
    const upto = readUptoPayment(payload.payload);
    return { scheme: UPTO, voucher: null, upto, auth: uptoAuthorization(upto) };
  }
  return { scheme: 'exact', voucher: null, upto: null, auth: readAuthorization(payload.payload) };
}

/** The amount the payment says it pays (`accepted.amount`), when it is a whole number. */
function paidAmount(payload: PaymentPayload): bigint | null {
  const amount = payload.accepted?.amount;
  return typeof amount === 'string' && /^\d{1,78}$/.test(amount) ? BigInt(amount) : null;
}


function newPayment(
  deps: PipelineDeps,
  req: PaidRequest,
  requestHash: string,
  p: { network: Network; payer: string; signatureHash: string; auth: ExactAuthorization; offer: Offer; scheme: PaymentScheme },
): Payment {
  const now = deps.clock.now();
  return {
    paymentId: deps.ids.next('pay'),
    network: p.network,
    payer: p.payer,
    nonce: p.auth.nonce,
    // Absent is exact (Payment.scheme).
    ...(p.scheme === 'exact' ? {} : { scheme: p.scheme }),
    asset: p.offer.asset,
    // An upto payment too is charged the offer's price: its settlement moves that, not the maximum.
    amount: p.offer.amount,
    usdValue: p.offer.usdValue,
    quoteId: p.offer.quote?.quoteId ?? null,
    quotePrice: p.offer.quote?.price ?? null,
    resource: req.entrypoint.name,
    resourceUrl: req.resource.url,
    requestHash,
    signatureHash: p.signatureHash,
    input: req.rawInput,
    state: 'VERIFIED',
    settlementTx: null,
    validBefore: p.auth.validBefore,
    createdAt: now,
    updatedAt: now,
  };
}
