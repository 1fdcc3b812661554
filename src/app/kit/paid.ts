/**
 * Running an operation's writes in one unit of work, and — when it was paid for — moving its
 * payment SETTLED → APPLIED in that same transaction. The compare-and-set on the payment is
 * what makes applying twice impossible: a second applier's transaction rolls back.
 */
import { DomainError, InvariantViolation } from '../../domain/errors.js';
import { transitionPayment, type Payment } from '../../domain/payment.js';
import type { StoredResponse } from '../../ports/payment-store.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from './deps.js';

export interface Paid<R> {
  /** A SETTLED payment for this operation. */
  payment: Payment;
  key?: undefined;
  /** The answer stored with the payment for replays, written with its move to APPLIED. */
  answer?: (result: R) => StoredResponse;
  /** Runs inside the transaction after the operation and the payment's move, e.g. to grant access. */
  onApplied?: (stores: Stores, result: R) => Promise<void>;
}

/**
 * An operation paid not by an x402 payment but by money custody already holds — a collected held
 * authorization (src/app/held): `key` names it (one pool swap per key), and `onApplied` runs in
 * the transaction that books it, e.g. the order's compare-and-set to EXECUTED, so the booking and
 * its owner's state commit together or not at all.
 */
export interface Held<R> {
  key: string;
  payment?: undefined;
  answer?: undefined;
  onApplied?: (stores: Stores, result: R) => Promise<void>;
}

/**
 * An outage (the pool's RPC, the database) met once the payer's money is custody's to trade — a
 * sell's pulled tokens, a pool buy's settled USDC about to be swapped: not a refusal. Nothing is
 * given back (a transaction may be on its way): the payment stays SETTLED (202), an order
 * EXECUTING, and the trade is finished later. A refund here could meet a slower copy of the
 * trade swapping the same money (decision 0059).
 */
export class InterruptedInCustody extends Error {
  constructor(key: string, cause: DomainError) {
    super(`the trade of ${key} met an outage with its money in custody (${cause.message}); it is finished later`, { cause });
    this.name = 'InterruptedInCustody';
  }
}

/**
 * A refund that met a transaction custody sent for its payment — a swap, a pull — that the chain
 * has not shown moved nothing (decision 0061): it is not made. Refunded beside a mined swap, the
 * payment would be paid twice; beside a mined pull, the seller's tokens kept. The payment stays
 * SETTLED (202); the reconciler finishes it from that transaction, or refunds it once the chain
 * shows the transaction reverted.
 */
export class RefundBesideCustody extends Error {
  constructor(
    paymentId: string,
    readonly transaction: string,
  ) {
    super(`payment ${paymentId} is not refunded: custody sent ${transaction} for it, which may have moved its money`);
    this.name = 'RefundBesideCustody';
  }
}

/**
 * A trade refused after custody took the money in (the USDC collected, the tokens pulled): the
 * refusal, with its code and status, for whoever records the refusal to give the money back in
 * the same transaction — a held trade's holder inside the compare-and-set that fails its order, a
 * paid one's refund inside the payment's compare-and-set (`giveBack`, run by application.ts). A
 * refusal that loses its compare-and-set (another copy of the trade applied it) gives nothing back.
 */
export class RefusedInCustody extends DomainError {
  readonly code: string;
  readonly status: number | undefined;
  constructor(
    refused: DomainError,
    readonly taken: 'usdc' | 'tokens',
    readonly giveBack?: (stores: Stores) => Promise<void>,
  ) {
    super(refused.message, refused.details, { cause: refused });
    this.code = refused.code;
    this.status = (refused as { status?: number }).status;
  }
}

/** How a trade is paid: an x402 payment, or money custody holds. */
export type Funding<R> = Paid<R> | Held<R>;

/** The key of a trade's exactly-once custody transactions: its payment, or its holder's key. */
export const fundingKey = (funding: { payment?: Payment | undefined; key?: string | undefined } | undefined): string | undefined => funding?.payment?.paymentId ?? funding?.key;

export class PaymentAlreadyApplied extends InvariantViolation {
  constructor(paymentId: string) {
    super(`payment ${paymentId} is no longer SETTLED; it was applied or refunded elsewhere`);
  }
}

export function applyInUnitOfWork<R>(
  deps: Pick<AppDeps, 'uow' | 'clock'>,
  paid: Funding<R> | undefined,
  work: (stores: Stores, now: Date) => Promise<R>,
): Promise<R> {
  return deps.uow.transaction(async (stores) => {
    const now = deps.clock.now();
    const result = await work(stores, now);
    if (paid?.payment) {
      const applied = transitionPayment(paid.payment, 'APPLIED', now);
      const { paymentId } = paid.payment;
      await stores.payments.move(applied, 'SETTLED', paid.answer?.(result), () => new PaymentAlreadyApplied(paymentId));
    }
    await paid?.onApplied?.(stores, result);
    return result;
  });
}
