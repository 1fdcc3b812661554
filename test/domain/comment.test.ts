/** A comment's text rules (docs/api.md "Comments"): NFC, 1–500 code points, newlines only, no bidi controls; one level of replies; only the creator hides. */
import { describe, expect, it } from 'vitest';
import { checkHide, checkReplyTarget, commentText, COMMENT_MAX_CODE_POINTS, type Comment } from '../../src/domain/comment.js';
import { DomainError } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import { OTHER, T0, WALLET } from '../support/fixtures.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  return undefined;
};

describe('comment text', () => {
  it('is NFC-normalised, trimmed, with line ends made \\n, and kept as written otherwise', () => {
    expect(commentText('  Cafe\u0301\r\nsecond\rthird  ')).toBe('Caf\u00e9\nsecond\nthird');
    expect(commentText('<img src=x onerror=alert(1)> javascript:alert(1)')).toBe('<img src=x onerror=alert(1)> javascript:alert(1)');
    expect(commentText('\u05e9\u05dc\u05d5\u05dd \u200f mark')).toBe('\u05e9\u05dc\u05d5\u05dd \u200f mark'); // RTL text and a mark are fine
  });

  it('counts code points after NFC: 500 are taken, 501 are not; an emoji is one, a decomposed é that composes is one', () => {
    expect(commentText('😀'.repeat(COMMENT_MAX_CODE_POINTS))).toHaveLength(1000); // UTF-16 units, 500 code points
    expect(commentText('e\u0301'.repeat(COMMENT_MAX_CODE_POINTS))).toBe('\u00e9'.repeat(500));
    expect(codeOf(() => commentText('😀'.repeat(501)))).toBe('COMMENT_TEXT_TOO_LONG');
    expect(codeOf(() => commentText('a'.repeat(501)))).toBe('COMMENT_TEXT_TOO_LONG');
  });

  it('refuses an empty or blank text', () => {
    expect(codeOf(() => commentText(''))).toBe('COMMENT_TEXT_EMPTY');
    expect(codeOf(() => commentText(' \n\t '))).toBe('COMMENT_TEXT_EMPTY');
  });

  it('refuses control characters but the newline, and unpaired surrogates, naming the code point', () => {
    for (const ch of ['\u0000', '\u0007', '\t', '\u001b', '\u007f', '\u0085', '\u009f', '\ud800']) {
      expect(codeOf(() => commentText(`a${ch}b`)), JSON.stringify(ch)).toBe('COMMENT_CONTROL_CHARACTER');
    }
    const e = (() => {
      try {
        commentText('a\u001bb');
      } catch (err) {
        return err as DomainError;
      }
    })();
    expect(e?.details).toMatchObject({ codePoint: 'U+001B' });
  });

  it('refuses every bidi embedding, override and isolate (U+202A–U+202E, U+2066–U+2069) with its own code', () => {
    for (const cp of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(codeOf(() => commentText(`invoice\u0020${String.fromCodePoint(cp)}gpj.exe`))).toBe('COMMENT_BIDI_CONTROL');
    }
  });
});

const comment = (over: Partial<Comment> = {}): Comment => ({
  commentId: 'cmt_1',
  tokenId: 'tok_A',
  network: TESTNET,
  author: WALLET,
  text: 'hi',
  replyTo: null,
  createdAt: T0,
  hiddenAt: null,
  ...over,
});

describe('replies and hides', () => {
  it('a reply answers a shown top-level comment of the same token', () => {
    expect(checkReplyTarget(comment(), 'tok_A', 'cmt_1')).toEqual(comment());
    expect(codeOf(() => checkReplyTarget(null, 'tok_A', 'cmt_1'))).toBe('COMMENT_NOT_FOUND');
    expect(codeOf(() => checkReplyTarget(comment({ tokenId: 'tok_B' }), 'tok_A', 'cmt_1'))).toBe('COMMENT_NOT_FOUND');
    expect(codeOf(() => checkReplyTarget(comment({ replyTo: 'cmt_0' }), 'tok_A', 'cmt_1'))).toBe('COMMENT_REPLY_INVALID');
    expect(codeOf(() => checkReplyTarget(comment({ hiddenAt: T0 }), 'tok_A', 'cmt_1'))).toBe('COMMENT_REPLY_INVALID');
  });

  it('only the token’s creator hides, and only a comment of its token', () => {
    const token = { tokenId: 'tok_A', creator: WALLET };
    expect(checkHide(comment(), token, 'cmt_1', WALLET.toLowerCase())).toEqual(comment());
    expect(codeOf(() => checkHide(comment(), token, 'cmt_1', OTHER))).toBe('NOT_TOKEN_CREATOR');
    expect(codeOf(() => checkHide(comment({ tokenId: 'tok_B' }), token, 'cmt_1', WALLET))).toBe('COMMENT_NOT_FOUND');
    expect(codeOf(() => checkHide(null, token, 'cmt_1', WALLET))).toBe('COMMENT_NOT_FOUND');
  });
});
