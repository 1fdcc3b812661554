/**
 * Comments' schemas: posting, listing and hiding a comment.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { amount, page } from '../kit/output-schemas.js';
import { limit, networkSchema, tokenIdSchema, ownCharacterRules } from '../kit/schemas.js';

/** A wallet that can hold and sign: any address but the zero address. */
export const commentIdSchema = z.string().regex(/^cmt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a comment id (cmt_ + 26-character ULID)');
/**
 * A paid comment (docs/api.md "Comments"). The text's rules (NFC, 1–500 code points, no control
 * or bidi character) are the domain's, checked before the 402 with their own codes; the schema
 * only bounds what is read.
 */
export const commentText = z.string().max(10_000).meta({ description: 'plain text, 1–500 Unicode code points after NFC normalisation and trimming; newlines kept, other control characters and bidi controls refused' });
ownCharacterRules.add(commentText);
export const commentInput = z.strictObject({
  tokenId: tokenIdSchema,
  text: commentText,
  replyTo: commentIdSchema.optional().meta({ description: 'a top-level comment of the same token this one answers (one level of replies)' }),
});
export const commentsQuery = z.strictObject({ limit: limit(50, 20), cursor: z.string().max(512).optional() });
// ---- answers ----

export const commentOutput = z.object({
  commentId: z.string(),
  tokenId: z.string(),
  network: networkSchema,
  author: z.string().describe('the wallet that paid for the comment'),
  text: z.string().nullable().describe("the comment as plain text; null once the token's creator hid it"),
  hidden: z.boolean(),
  hiddenAt: z.string().nullable(),
  replyTo: z.string().nullable().describe('the top-level comment this one answers; null for a comment of its own'),
  createdAt: z.string(),
  holding: z
    .object({ balance: amount, share: z.string() })
    .describe("what the author holds of the token now, and its share of the tokens in circulation (as /holders)"),
  badges: z.array(z.enum(['creator', 'top_holder'])).describe("creator: the token's creator; top_holder: one of its 10 largest holders"),
});
export const commentThreadOutput = commentOutput.extend({ replies: z.array(commentOutput).describe('its replies, oldest first') });
export const commentPageOutput = page(commentThreadOutput).extend({ tokenId: z.string() });
