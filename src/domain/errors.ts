/**
 * Domain errors: one class per error code of the product contract (docs/api.md "Error codes"); those
 * of comments, images and fair launches are in feature-errors.ts, handed on from here.
 * Each has a stable `code`; the HTTP adapter maps codes to statuses from one table.
 */
import { DomainError, type ErrorDetails } from './domain-error.js';

export { DomainError, type ErrorDetails } from './domain-error.js';
export * from './feature-errors.js';

export interface ValidationIssue {
  path: string;
  message: string;
}

export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_ERROR';
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[], message = 'The request is invalid.', extra: ErrorDetails = {}) {
    super(message, { issues, ...extra });
    this.issues = issues;
  }
  static of(path: string, message: string): ValidationError {
    return new ValidationError([{ path, message }]);
  }
}

export class PaymentRequired extends DomainError {
  readonly code = 'PAYMENT_REQUIRED';
  constructor(details: ErrorDetails, message = 'This endpoint requires an x402 payment.') {
    super(message, details);
  }
}

export class PaymentInvalid extends DomainError {
  readonly code = 'PAYMENT_INVALID';
}

export class InsufficientFunds extends DomainError {
  readonly code = 'INSUFFICIENT_FUNDS';
}

export class NetworkMismatch extends DomainError {
  readonly code = 'NETWORK_MISMATCH';
  constructor(expected: string, received: string, extra: ErrorDetails = {}) {
    super(`This wallet pays on ${expected}, but the payment was signed for ${received}.`, {
      expected,
      received,
      ...extra,
    });
  }
}

export class NotFound extends DomainError {
  readonly code = 'NOT_FOUND';
  constructor(message = 'Nothing is here.', details?: ErrorDetails) {
    super(message, details);
  }
}

export class TokenNotFound extends DomainError {
  readonly code = 'TOKEN_NOT_FOUND';
  constructor(tokenId: string) {
    super(`Token ${tokenId} does not exist.`, { tokenId });
  }
}

export class EntrypointNotFound extends DomainError {
  readonly code = 'ENTRYPOINT_NOT_FOUND';
  constructor(name: string) {
    super(`Entrypoint ${name} does not exist.`, { name });
  }
}

export class QuoteNotFound extends DomainError {
  readonly code = 'QUOTE_NOT_FOUND';
  constructor(quoteId: string) {
    super(`Quote ${quoteId} does not exist.`, { quoteId });
  }
}

export class SlippageExceeded extends DomainError {
  readonly code = 'SLIPPAGE_EXCEEDED';
  constructor(message: string, expected: string, actual: string, extra: ErrorDetails = {}) {
    super(message, { expected, actual, ...extra });
  }
}

export class InsufficientBalance extends DomainError {
  readonly code = 'INSUFFICIENT_BALANCE';
  /** `asset`: a stablecoin the wallet lacks (USDC, EURC), named with the amounts; else tokens. */
  constructor(requested: string, balance: string, asset?: string) {
    super(
      asset ? `The wallet holds ${balance} ${asset}, less than the ${requested} ${asset} this needs.` : 'The wallet holds fewer tokens than requested.',
      asset ? { requested, balance, asset } : { requested, balance },
    );
  }
}

/**
 * A sell (or a sell order) of more tokens than the wallet holds free while part of its tokens are
 * locked by a vested dev buy (docs/api.md "Fees and earnings"): refused before any payment.
 */
export class TokensLocked extends DomainError {
  readonly code = 'TOKENS_LOCKED';
  constructor(d: { tokenId: string; wallet: string; requested: string; available: string; locked: string; nextReleaseAt: string | null }) {
    super(
      `${d.locked} tokens of this wallet are locked by its vested dev buy (released on its schedule${d.nextReleaseAt ? `; next at ${d.nextReleaseAt} or after` : ''}): it holds ${d.available} it may sell, fewer than the ${d.requested} asked.`,
      d,
    );
  }
}

export class TokenGraduated extends DomainError {
  readonly code = 'TOKEN_GRADUATED';
  constructor(tokenId: string, poolFailed = false) {
    super(
      poolFailed
        ? `Token ${tokenId} has graduated but its pool could not be created; it can only be sold, on its curve.`
        : `Token ${tokenId} has graduated; curve trading has stopped.`,
      poolFailed ? { tokenId, sellsOnCurve: true } : { tokenId },
    );
  }
}

export class CurveCapacityExceeded extends DomainError {
  readonly code = 'CURVE_CAPACITY_EXCEEDED';
  constructor(maxUsd: string, remainingTokens: string) {
    super('The buy would take more than the remaining curve supply.', { maxUsd, remainingTokens });
  }
}

export class TokenNetworkMismatch extends DomainError {
  readonly code = 'TOKEN_NETWORK_MISMATCH';
  constructor(tokenNetwork: string, callerNetwork: string) {
    super(`This token trades on ${tokenNetwork}; the caller pays on ${callerNetwork}.`, {
      expected: tokenNetwork,
      received: callerNetwork,
    });
  }
}

export class PaymentAlreadyUsed extends DomainError {
  readonly code = 'PAYMENT_ALREADY_USED';
  constructor(paymentId: string) {
    super('This payment authorization was already used for another request.', { paymentId });
  }
}

export class QuoteExpired extends DomainError {
  readonly code = 'QUOTE_EXPIRED';
  constructor(quoteId: string, expiredAt: string) {
    super(`Quote ${quoteId} expired at ${expiredAt}.`, { quoteId, expiredAt });
  }
}

export class RateLimited extends DomainError {
  readonly code = 'RATE_LIMITED';
  constructor(limit: number, windowSeconds: number, retryAfterSeconds: number, message = 'Too many requests; slow down.', extra: ErrorDetails = {}) {
    super(message, { limit, windowSeconds, retryAfterSeconds, ...extra });
  }
}

export class FacilitatorError extends DomainError {
  readonly code = 'FACILITATOR_ERROR';
}

export class ServiceUnavailable extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 5, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, details, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class NetworkDetectionUnavailable extends DomainError {
  readonly code = 'NETWORK_DETECTION_UNAVAILABLE';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds = 5) {
    super('The wallet network cannot be detected right now.');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A broken invariant inside the service: never the caller's fault, answered as 500. */
export class InvariantViolation extends DomainError {
  readonly code = 'INTERNAL_ERROR';
}

/** A refusal of what the caller asked (any domain error but a broken invariant): answered, and after a payment stored with it. */
export function isRefusal(e: unknown): e is DomainError {
  return e instanceof DomainError && e.code !== 'INTERNAL_ERROR';
}

/**
 * A sell's token authorization (docs/api.md "Tokens on chain") cannot pull the tokens: forged, expired or about to,
 * not yet valid, used or cancelled, for another amount or payee. 400; 409 when it is sound but
 * signed by another wallet than the one paying for the sell.
 */
export class TokenAuthorizationInvalid extends DomainError {
  readonly code = 'TOKEN_AUTHORIZATION_INVALID';
  /** The one code of two statuses in the product contract: 409 for a payer other than `from`. */
  readonly status: 400 | 409;
  constructor(reason: string, message: string, conflict = false) {
    super(message, { reason });
    this.status = conflict ? 409 : 400;
  }
}

/**
 * A held USDC or EURC authorization (an order's, a pledge's: docs/api.md "Orders")
 * that the service could not use when its condition is met: forged, signed by another wallet, for
 * another amount, network or asset, not to custody, its nonce used or cancelled, expiring before
 * the order or raise does, or expired. 400, refused before any payment; `details.reason` says which.
 */
export class HeldAuthorizationInvalid extends DomainError {
  readonly code = 'HELD_AUTHORIZATION_INVALID';
  constructor(reason: string, message: string, extra: ErrorDetails = {}) {
    super(message, { reason, ...extra });
  }
}

/** An order that is not OPEN any more (executing, executed, failed, expired): it cannot be cancelled. */
export class OrderNotOpen extends DomainError {
  readonly code = 'ORDER_NOT_OPEN';
  constructor(orderId: string, state: string) {
    super(`Order ${orderId} is ${state}; only an OPEN order can be cancelled.`, { orderId, state });
  }
}

/** Cancelling an order needs its wallet proven (Sign-In-With-X or a signed cancel message), and only that wallet may. */
export class OrderWalletNotProven extends DomainError {
  readonly code = 'ORDER_WALLET_NOT_PROVEN';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * A referrer (a trade's `referrer`, a token's `platformReferrer`) that is one of the service's own
 * accounts or contracts: a fee share paid there is the treasury paying itself, or locked for
 * ever (docs/api.md "Fees and earnings"). Refused before any payment is asked for.
 */
export class ReferrerNotAllowed extends DomainError {
  readonly code = 'REFERRER_NOT_ALLOWED';
  constructor(field: string, address: string, what: string) {
    const instead = field.startsWith('creatorSplits')
      ? 'Name a wallet that can spend it (an account or a smart wallet).'
      : 'Name a wallet of the one who referred (an account or a smart wallet), or none: the treasury then keeps the share.';
    super(`\`${field}\` ${address} is ${what}: a fee share paid there could never be spent. ${instead}`, {
      field,
      address,
      is: what,
    });
  }
}

/** A sell of a token whose contract is not deployed yet: nothing to pull (docs/api.md "Tokens on chain"). */
export class TokenNotDeployed extends DomainError {
  readonly code = 'TOKEN_NOT_DEPLOYED';
  constructor(tokenId: string, state: string) {
    super(
      state === 'FAILED'
        ? `Token ${tokenId} could not be deployed on chain (FAILED); it cannot be traded.`
        : `Token ${tokenId} is not deployed on chain yet (${state}); try again shortly.`,
      { tokenId, deployment: state },
    );
  }
}
