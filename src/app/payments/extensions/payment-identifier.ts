/**
 * The x402 `payment-identifier` extension (docs/api.md "Payment identifier"): a client-chosen id makes a paid request
 * idempotent. The same id for the same request (same payer, same request hash) gets the answer
 * stored with the id's payment — whatever new authorization it carries, nothing is charged
 * again; the same id for another request is 409 PAYMENT_ALREADY_USED. Works beside the nonce
 * rule: an authorization is still good once, whatever id it carries.
 */
import type { Payment } from '../../../domain/payment.js';
import type { PaymentIdentifierRecord } from '../../../ports/payment-identifier-store.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import type { UnitOfWork } from '../../../ports/unit-of-work.js';

export type PaymentIdentifierMatch =
  /** Never seen: the request goes through the flow and claims the id with its payment. */
  | { kind: 'new' }
  /** Seen for this very request: answer `response` (null while the first request is still in flight: wait or 202). */
  | { kind: 'replay'; paymentId: string; response: StoredResponse | null }
  /** Seen for another request or payer: 409 PAYMENT_ALREADY_USED naming `paymentId`. */
  | { kind: 'conflict'; paymentId: string };

const samePayer = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** What a request carrying `id` is, before anything of it is verified or claimed. */
export async function matchPaymentIdentifier(
  uow: UnitOfWork,
  request: { id: string; payer: string; requestHash: string },
): Promise<PaymentIdentifierMatch> {
  const found = await uow.run((s) => s.paymentIds.find(request.id));
  if (!found) return { kind: 'new' };
  return classify(found.record, found.response, request);
}

type Seen = Exclude<PaymentIdentifierMatch, { kind: 'new' }>;

function classify(record: PaymentIdentifierRecord, response: StoredResponse | null, request: { payer: string; requestHash: string }): Seen {
  if (record.requestHash === request.requestHash && samePayer(record.payer, request.payer)) {
    return { kind: 'replay', paymentId: record.paymentId, response };
  }
  return { kind: 'conflict', paymentId: record.paymentId };
}

export type IdentifiedClaim =
  | { claimed: true; payment: Payment }
  /** The authorization's (network, payer, nonce) was claimed before: the nonce rule answers. */
  | { claimed: false; existing: Payment }
  /** A concurrent request took the id first: answer as `match` says. Nothing of this payment was stored. */
  | { claimed: false; identifier: Seen };

class IdentifierTaken extends Error {
  constructor(readonly record: PaymentIdentifierRecord) {
    super('payment identifier taken');
  }
}

/**
 * The flow's claim with an id: the payment and its id are stored together or not at all, so of
 * concurrent requests with one id exactly one is ever settled.
 */
export async function claimPayment(uow: UnitOfWork, payment: Payment, id: string | null): Promise<IdentifiedClaim> {
  if (id === null) return uow.run((s) => s.payments.claim(payment));
  try {
    return await uow.transaction(async (s) => {
      const claim = await s.payments.claim(payment);
      if (!claim.claimed) return claim;
      const taken = await s.paymentIds.claim({ id, payer: payment.payer, requestHash: payment.requestHash, paymentId: payment.paymentId, createdAt: payment.createdAt });
      if (!taken.claimed) throw new IdentifierTaken(taken.existing); // rolls the payment back
      return claim;
    });
  } catch (e) {
    if (!(e instanceof IdentifierTaken)) throw e;
    const response = (await uow.run((s) => s.paymentIds.find(id)))?.response ?? null;
    return { claimed: false, identifier: classify(e.record, response, payment) };
  }
}
