/**
 * Comments' entries of the catalogue (docs/api.md "Comments"): the paid comment; a token's thread and the creator's hide (free).
 */
import { checksummed } from '../kit/address.js';
import { z } from 'zod';
import { type Entrypoint, type Prepared, fixed } from '../kit/catalogue/entrypoint.js';
import { read } from '../kit/catalogue/operation.js';
import { token, tokenField } from '../kit/catalogue/read-fields.js';
import { parseWith } from '../kit/schemas.js';
import { type CheckedComment, type CommentRequest, checkComment, hideComment, listComments, postComment } from './comments.js';
import { commentIdSchema, commentInput, commentOutput, commentPageOutput, commentsQuery } from './schemas.js';
import { COMMENT_EXAMPLES } from './examples.js';

/** token_comment: a paid comment or reply on a token's thread (docs/api.md "Comments"), every rule checked before the 402. */
export function commentEntrypoint(): Entrypoint<CommentRequest, Prepared & { checked: CheckedComment }> {
  return {
    kind: 'paid',
    name: 'token_comment',
    example: COMMENT_EXAMPLES.token_comment,
    operation: 'comment_token',
    description:
      "Post a comment on a token's thread, or a reply (`replyTo`) to one of its top-level comments; the payer is the author. Plain text, 1–500 Unicode code points after NFC normalisation; control characters (but the newline) and bidi controls are refused before any payment.",
    tool: { name: 'token_comment', title: 'Comment on a token', readOnly: false },
    ...fixed((settings) => settings.prices.comment),
    successStatus: 201,
    inputSchema: commentInput,
    outputSchema: commentOutput,
    parse: (raw) => parseWith(commentInput, raw),
    // Every rule before the 402: a refused comment is never paid for. Paid on the token's network.
    async prepare(deps, input) {
      const checked = await checkComment(deps, input);
      return { amount: deps.settings.prices.comment, network: checked.network, checked };
    },
    execute: (deps, _input, prepared, caller, paid) => postComment(deps, prepared.checked, caller.wallet, paid),
  };
}

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function commentReads() {
  return {
    list_comments: read({
      operation: 'list_comments',
      tool: { name: 'list_comments', title: "List a token's comments" },
      description:
        "A token's comment thread, newest first, each comment with its replies (oldest first): its author (the wallet that paid for it), the author's holding and share of the tokens in circulation, and badges (creator, top_holder). A comment the creator hid keeps its place with `hidden: true` and `text: null`. Pages with `cursor`.",
      summary: 'comments, newest first, with replies, holdings and badges; cursor pages',
      http: { path: '/tokens/:id/comments', params: token },
      inputSchema: commentsQuery.extend(tokenField),
      outputSchema: commentPageOutput,
      run: (deps, q) => listComments(deps, q.tokenId, { limit: q.limit, cursor: q.cursor }),
    }),
    hide_comment: read({
      operation: 'hide_comment',
      description:
        "The token's creator hides a comment of its token, free: the request proves the creator's wallet with a SIGN-IN-WITH-X header. The comment stays listed, its text withheld. Hiding a hidden comment answers it as it is.",
      summary: "the token's creator hides a comment (SIGN-IN-WITH-X proof required)",
      http: { path: '/tokens/:id/comments/:commentId/hide', params: { ...token, commentId: 'commentId' }, method: 'post', proofRequired: true, errors: [403] },
      inputSchema: z.strictObject({ ...tokenField, commentId: commentIdSchema }),
      outputSchema: commentOutput,
      run: (deps, q, call) => hideComment(deps, { tokenId: q.tokenId, commentId: q.commentId, wallet: checksummed(call.provenWallet!) }),
    }),
  };
}
