/**
 * The errors of comments, token images and fair launches (docs/api.md "Error codes"): one class per
 * code. errors.ts hands them on with the rest, so callers import every error from there.
 */
import { DomainError, type ErrorDetails } from './domain-error.js';

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
