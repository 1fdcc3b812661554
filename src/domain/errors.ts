/**
 * Domain errors: one class per error code of the product contract (docs/api.md "Error codes").
 * Each has a stable `code`; the HTTP adapter maps codes to statuses from one table.
 */
export type ErrorDetails = Record<string, unknown>;

export abstract class DomainError extends Error {
  abstract readonly code: string;
  readonly details: ErrorDetails | undefined;

  /** `cause` keeps what went wrong underneath (a driver error): logged, never sent to the caller. */
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.details = details;
  }
}

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
  constructor(requested: string, balance: string) {
    super('The wallet holds fewer tokens than requested.', { requested, balance });
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
    super(`\`${field}\` ${address} is ${what}: a fee share paid there could never be spent. Name a wallet of the one who referred (an account or a smart wallet), or none: the treasury then keeps the share.`, {
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

/** Comments (docs/api.md "Comments"): why a comment, a reply or a hide is refused, each reason its own class and code. */
export class CommentTextEmpty extends DomainError {
  readonly code = 'COMMENT_TEXT_EMPTY';
}
export class CommentTextTooLong extends DomainError {
  readonly code = 'COMMENT_TEXT_TOO_LONG';
}
/** A control character but the newline, or an unpaired surrogate. */
export class CommentControlCharacter extends DomainError {
  readonly code = 'COMMENT_CONTROL_CHARACTER';
}
/** A bidi embedding, override or isolate: text shown in another order than it is stored. */
export class CommentBidiControl extends DomainError {
  readonly code = 'COMMENT_BIDI_CONTROL';
}
/** A reply to a reply, or to a hidden comment. */
export class CommentReplyInvalid extends DomainError {
  readonly code = 'COMMENT_REPLY_INVALID';
}
export class CommentNotFound extends DomainError {
  readonly code = 'COMMENT_NOT_FOUND';
}
/** An upload larger than an image may be (docs/api.md "Token images"); refused before any payment. */
export class ImageTooLarge extends DomainError {
  readonly code = 'IMAGE_TOO_LARGE';
  constructor(bytes: number, maxBytes: number) {
    super(`The image is ${bytes} bytes; at most ${maxBytes} (1 MiB) are taken.`, { bytes, maxBytes });
  }
}

/** An image declaring more pixels than the service decodes (a decompression bomb, or just too big): a side over 4096, or more than 4096 × 4096 in all. */
export class ImageTooManyPixels extends DomainError {
  readonly code = 'IMAGE_TOO_MANY_PIXELS';
  /** Without a size: the decoder found more pixels than its header declared. */
  constructor(maxPixels: number, size?: { width: number; height: number }, maxSide = 4096) {
    super(
      `The image ${size ? `is ${size.width} × ${size.height} pixels` : 'has more pixels than it declares'}; at most ${maxSide} × ${maxSide} are decoded (each side at most ${maxSide}, ${maxPixels} pixels in all).`,
      { ...size, maxPixels, maxSide },
    );
  }
}

/**
 * An image that would cost more to decode than a normal image does (decision 0064): a
 * progressive JPEG of thousands of scans, a file of thousands of chunks or frames — counted from
 * its bytes before any decoding — or a decode that ran past its time budget.
 */
export class ImageTooComplex extends DomainError {
  readonly code = 'IMAGE_TOO_COMPLEX';
  constructor(message: string, details?: ErrorDetails) {
    super(message, details);
  }
  /** Counted before decoding: `count` of `what` (scans, segments, chunks, frames) where at most `max` are taken. */
  static counted(format: string, what: string, count: number, max: number): ImageTooComplex {
    return new ImageTooComplex(`The ${format.toUpperCase()} has ${count} ${what}; at most ${max} are decoded (an ordinary image has far fewer).`, { format, what, count, max });
  }
  /** The decode ran past its budget. */
  static overBudget(budgetSeconds: number): ImageTooComplex {
    return new ImageTooComplex(`The image took more than ${budgetSeconds} s to decode; an ordinary image takes a fraction of a second.`, { what: 'decode_seconds', max: budgetSeconds });
  }
}

/** An SVG: a document that can carry scripts and links, refused whatever it shows. */
export class ImageSvgRefused extends DomainError {
  readonly code = 'IMAGE_SVG_REFUSED';
  constructor() {
    super('SVG images are not taken (they can carry scripts); upload a PNG, JPEG, WebP or GIF.');
  }
}

/** Bytes that are not a PNG, JPEG, WebP or GIF, whatever their name or declared type. */
export class ImageTypeUnsupported extends DomainError {
  readonly code = 'IMAGE_TYPE_UNSUPPORTED';
  constructor() {
    super('The upload is not a PNG, JPEG, WebP or GIF image (told by its bytes, not its name or declared type).', { accepted: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] });
  }
}

/** Bytes that start like an image but do not decode as one (truncated, corrupt, or another format inside). */
export class ImageUnreadable extends DomainError {
  readonly code = 'IMAGE_UNREADABLE';
  constructor(reason: string) {
    super(`The image could not be decoded: ${reason}.`, { reason });
  }
}

/** Something only a token's creator may do (change its image, hide a comment on it), asked by another wallet. */
export class NotTokenCreator extends DomainError {
  readonly code = 'NOT_TOKEN_CREATOR';
  constructor(tokenId: string, wallet: string) {
    super(`Only the creator of ${tokenId} may do this; ${wallet} is not its creator.`, { tokenId, wallet });
  }
}

/** A fair launch's token before its raise settled: nothing buys, sells or quotes it yet (docs/api.md "Fair launches"). */
export class TokenRaising extends DomainError {
  readonly code = 'TOKEN_RAISING';
  constructor(tokenId: string) {
    super(`Token ${tokenId} is a fair launch still raising; it trades once its raise ends (GET /api/tokens/${tokenId}/raise). Pledge with token_pledge instead.`, { tokenId });
  }
}

/** A raise asked of a token that was not created as a fair launch. */
export class RaiseNotFound extends DomainError {
  readonly code = 'RAISE_NOT_FOUND';
  constructor(tokenId: string) {
    super(`Token ${tokenId} has no raise: it was not created as a fair launch.`, { tokenId });
  }
}

/** A pledge (or its cancel) after the raise's end. */
export class RaiseClosed extends DomainError {
  readonly code = 'RAISE_CLOSED';
  constructor(tokenId: string, endsAt: string) {
    super(`The raise of token ${tokenId} ended at ${endsAt}; it takes no more pledges and no cancels.`, { tokenId, endsAt });
  }
}

/** A pledge that would take the wallet's pledges in force above the raise's `maxPerWalletUsd`. */
export class PledgeCapExceeded extends DomainError {
  readonly code = 'PLEDGE_CAP_EXCEEDED';
  constructor(maxPerWalletUsd: string, pledgedUsd: string, usdAmount: string) {
    super(`A wallet may pledge at most $${maxPerWalletUsd} to this raise; it has $${pledgedUsd} pledged, and $${usdAmount} more would exceed that.`, {
      maxPerWalletUsd,
      pledgedUsd,
      usdAmount,
    });
  }
}

export class PledgeNotFound extends DomainError {
  readonly code = 'PLEDGE_NOT_FOUND';
  constructor(pledgeId: string) {
    super(`Pledge ${pledgeId} does not exist.`, { pledgeId });
  }
}

/** A cancel that is not the pledger's own (its signature recovers another wallet), or of a pledge no longer PLEDGED. */
export class PledgeNotCancellable extends DomainError {
  readonly code = 'PLEDGE_NOT_CANCELLABLE';
  readonly status: 403 | 409;
  constructor(pledgeId: string, reason: 'not_the_pledger' | 'not_pledged', state?: string) {
    super(
      reason === 'not_the_pledger' ? `The signature does not prove the wallet of pledge ${pledgeId}.` : `Pledge ${pledgeId} is ${state}; only a PLEDGED pledge can be cancelled.`,
      { pledgeId, reason, ...(state ? { state } : {}) },
    );
    this.status = reason === 'not_the_pledger' ? 403 : 409;
  }
}
