/**
 * A comment on a token (docs/api.md "Comments", docs/decisions/0050): paid for by its author,
 * plain text under rules that keep it readable and unspoofable, one level of replies, and hidden
 * (never deleted) by the token's creator.
 */
import { CommentBidiControl, CommentControlCharacter, CommentNotFound, CommentReplyInvalid, CommentTextEmpty, CommentTextTooLong, NotTokenCreator } from './errors.js';
import type { Network } from './network.js';

export interface Comment {
  readonly commentId: string;
  readonly tokenId: string;
  readonly network: Network;
  /** The payer, EIP-55 checksummed. */
  readonly author: string;
  /** NFC-normalised, checked by `commentText`. */
  readonly text: string;
  /** The top-level comment this one answers; null for a comment of its own. Replies have no replies. */
  readonly replyTo: string | null;
  readonly createdAt: Date;
  /** When the token's creator hid it; null while shown. */
  readonly hiddenAt: Date | null;
}

/** The most a comment holds, in Unicode code points after NFC normalisation. */
export const COMMENT_MAX_CODE_POINTS = 500;

/** Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they make text read in another order than it is stored. */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
/** Control characters (C0 but the newline, DEL, C1) and unpaired UTF-16 surrogates (no character at all). */
const CONTROL = /(?!\n)[\p{Cc}\p{Cs}]/u;

const codePointOf = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The text a comment stores: line ends made `\n`, NFC-normalised, trimmed; then 1 to 500 code
 * points, no control character but the newline, no bidi control, no unpaired surrogate.
 */
export function commentText(raw: string): string {
  const text = raw.replace(/\r\n?/g, '\n').normalize('NFC').trim();
  if (text.length === 0) throw new CommentTextEmpty('The text is empty (after trimming white space).', { field: 'text' });
  const length = [...text].length;
  if (length > COMMENT_MAX_CODE_POINTS) {
    throw new CommentTextTooLong(`The text is ${length} characters long (Unicode code points after NFC); at most ${COMMENT_MAX_CODE_POINTS}.`, {
      field: 'text',
      length,
      max: COMMENT_MAX_CODE_POINTS,
    });
  }
  const control = CONTROL.exec(text);
  if (control) {
    throw new CommentControlCharacter(`The text holds the control character ${codePointOf(control[0])}; only the newline is taken (an unpaired surrogate is no character).`, {
      field: 'text',
      codePoint: codePointOf(control[0]),
    });
  }
  const bidi = BIDI_CONTROL.exec(text);
  if (bidi) {
    throw new CommentBidiControl(`The text holds the bidirectional control ${codePointOf(bidi[0])}, which would show it in another order than it is written.`, {
      field: 'text',
      codePoint: codePointOf(bidi[0]),
    });
  }
  return text;
}

/** A reply answers a shown top-level comment of the same token: one level of replies. */
export function checkReplyTarget(parent: Comment | null, tokenId: string, replyTo: string): Comment {
  if (!parent || parent.tokenId !== tokenId) {
    throw new CommentNotFound(`Comment ${replyTo} is not a comment of token ${tokenId}.`, { tokenId, commentId: replyTo });
  }
  if (parent.replyTo !== null) {
    throw new CommentReplyInvalid(`Comment ${replyTo} is itself a reply: answer the comment it replies to (${parent.replyTo}).`, {
      replyTo,
      reason: 'nested',
      answer: parent.replyTo,
    });
  }
  if (parent.hiddenAt !== null) {
    throw new CommentReplyInvalid(`Comment ${replyTo} was hidden by the token's creator; it takes no replies.`, { replyTo, reason: 'hidden' });
  }
  return parent;
}

/** Only the token's creator hides a comment of its token. */
export function checkHide(comment: Comment | null, token: { tokenId: string; creator: string }, commentId: string, wallet: string): Comment {
  if (!comment || comment.tokenId !== token.tokenId) {
    throw new CommentNotFound(`Comment ${commentId} is not a comment of token ${token.tokenId}.`, { tokenId: token.tokenId, commentId });
  }
  if (wallet.toLowerCase() !== token.creator.toLowerCase()) {
    throw new NotTokenCreator(token.tokenId, wallet);
  }
  return comment;
}
