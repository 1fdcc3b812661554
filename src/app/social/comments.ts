/**
 * Comments on a token (docs/api.md "Comments", docs/decisions/0050): a paid post (its rules are
 * checked before the 402, so a refusal charges nothing), the free thread with each author's
 * holding and badges from the books, and the creator's free, wallet-proven hide.
 */
import { checkHide, checkReplyTarget, commentText, type Comment } from '../../domain/comment.js';
import { isRefusal } from '../../domain/errors.js';
import { formatRatio, formatTokens } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import type { Position } from '../../domain/position.js';
import type { Token } from '../../domain/token.js';
import type { PageRequest } from '../../ports/page.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import type { SuccessEnvelope } from '../kit/error-status.js';
import { applyInUnitOfWork, type Paid } from '../kit/paid.js';
import { loadToken } from '../trading/index.js';

/** How many of a token's largest holders wear the `top_holder` badge. */
export const TOP_HOLDER_RANKS = 10;

export interface CommentRequest {
  tokenId: string;
  text: string;
  replyTo?: string | undefined;
}

/** A request whose rules passed: its text as stored, and the token's network (the only one it is paid on). */
export interface CheckedComment {
  tokenId: string;
  text: string;
  replyTo: string | null;
  network: Network;
}

type CommentDeps = Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'metrics'>;

/** A refusal of a comment or a hide, counted by its code (docs/operations.md "Metrics"). */
async function counted<T>(deps: Pick<AppDeps, 'metrics'>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isRefusal(e)) deps.metrics?.increment('comment_refusals_total', { code: e.code });
    throw e;
  }
}

/** Every rule of a comment, before its payment is asked for: the text, the token, the reply target. */
export function checkComment(deps: CommentDeps, req: CommentRequest): Promise<CheckedComment> {
  return counted(deps, async () => {
    const text = commentText(req.text);
    return deps.uow.run(async (stores) => {
      const token = await loadToken(stores, req.tokenId);
      if (req.replyTo !== undefined) checkReplyTarget(await stores.comments.get(req.replyTo), token.tokenId, req.replyTo);
      return { tokenId: token.tokenId, text, replyTo: req.replyTo ?? null, network: token.network };
    });
  });
}

/** The paid comment: stored with its event, in the payment's transaction; the payer is its author. */
export async function postComment(deps: CommentDeps, checked: CheckedComment, author: string, paid?: Paid<CommentView>): Promise<CommentView> {
  const view = await applyInUnitOfWork(deps, paid, async (stores, now) => {
    const token = await loadToken(stores, checked.tokenId);
    // Checked before the 402; checked again here, where a hide may have come in between.
    if (checked.replyTo !== null) checkReplyTarget(await stores.comments.get(checked.replyTo), token.tokenId, checked.replyTo);
    const comment: Comment = { commentId: deps.ids.next('cmt'), tokenId: token.tokenId, network: token.network, author, text: checked.text, replyTo: checked.replyTo, createdAt: now, hiddenAt: null };
    await stores.comments.add(comment);
    const [shown] = await commentViews(stores, token, [comment]);
    await stores.events.append({ type: 'comment.posted', network: token.network, tokenId: token.tokenId, data: { comment: shown, paymentId: paid?.payment.paymentId ?? null }, createdAt: now });
    return shown!;
  });
  deps.metrics?.increment('comments_total', { action: 'posted' });
  return view;
}

/** A token's comments, newest first, each with its replies (oldest first), its author's holding and badges: five queries a page. */
export function listComments(deps: Pick<AppDeps, 'uow'>, tokenId: string, page: PageRequest) {
  return deps.uow.run(async (stores) => {
    const token = await loadToken(stores, tokenId);
    const threads = await stores.comments.threads(tokenId, page);
    const replies = await stores.comments.replies(threads.items.map((c) => c.commentId));
    const views = await commentViews(stores, token, [...threads.items, ...replies]);
    const byId = new Map(views.map((v) => [v.commentId, v]));
    const items = threads.items.map((c) => ({ ...byId.get(c.commentId)!, replies: replies.filter((r) => r.replyTo === c.commentId).map((r) => byId.get(r.commentId)!) }));
    return { tokenId, items, nextCursor: threads.nextCursor };
  });
}

/** The token's creator hides a comment of its token (free, its wallet proven): its text is withheld from then on. */
export function hideComment(deps: CommentDeps, req: { tokenId: string; commentId: string; wallet: string }): Promise<CommentView> {
  return counted(deps, async () => {
    let hidNow = false;
    const view = await deps.uow.transaction(async (stores) => {
      const token = await loadToken(stores, req.tokenId);
      const comment = checkHide(await stores.comments.get(req.commentId), token, req.commentId, req.wallet);
      const now = deps.clock.now();
      // Hiding a hidden comment answers it as it is: the same request twice is one hide.
      hidNow = await stores.comments.hide(comment.commentId, now);
      const [shown] = await commentViews(stores, token, [hidNow ? { ...comment, hiddenAt: now } : comment]);
      if (hidNow) {
        await withholdText(stores, shown!);
        await stores.events.append({ type: 'comment.hidden', network: token.network, tokenId: token.tokenId, data: { comment: shown }, createdAt: now });
      }
      return shown!;
    });
    if (hidNow) deps.metrics?.increment('comments_total', { action: 'hidden' });
    return view;
  });
}

/**
 * What was hidden is never served again (docs/api.md "Comments"): the `comment.posted` event a
 * replay of `/api/events` reads, and the answer stored with the comment's payment (which a
 * replayed payment or payment identifier is answered with), keep the hidden view from now on.
 */
async function withholdText(stores: Stores, hidden: CommentView): Promise<void> {
  const paymentIds = await stores.events.withholdComment(hidden.tokenId, hidden.commentId, hidden);
  for (const paymentId of paymentIds) {
    const stored = await stores.payments.getResponse(paymentId);
    const body = stored?.body as SuccessEnvelope<{ commentId?: unknown }> | undefined;
    if (body?.data?.commentId === hidden.commentId) await stores.payments.saveResponse(paymentId, { ...stored!, body: { ...body, data: hidden } });
  }
}

export type Badge = 'creator' | 'top_holder';

export interface CommentView {
  commentId: string;
  tokenId: string;
  network: Network;
  author: string;
  text: string | null;
  hidden: boolean;
  hiddenAt: string | null;
  replyTo: string | null;
  createdAt: string;
  holding: { balance: string; share: string };
  badges: Badge[];
}

/** Comments as shown, their authors' holdings and badges read in two queries, whatever their number. */
async function commentViews(stores: Stores, token: Token, comments: readonly Comment[]): Promise<CommentView[]> {
  if (comments.length === 0) return [];
  // One after the other: a transaction's connection runs one statement at a time.
  const held = await stores.positions.ofWallets(token.tokenId, [...new Set(comments.map((c) => c.author))]);
  const top = await stores.positions.holders(token.tokenId, TOP_HOLDER_RANKS);
  return comments.map((c) => commentView(c, token, held, top));
}

const sameWallet = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** One comment as shown: a hidden one keeps its author and place, never its text. */
export function commentView(c: Comment, token: Pick<Token, 'creator' | 'curve'>, held: readonly Position[], top: readonly Position[]): CommentView {
  const balance = held.find((p) => sameWallet(p.wallet, c.author))?.balance ?? 0n;
  const sold = token.curve.tokensSold;
  const badges: Badge[] = [];
  if (sameWallet(c.author, token.creator)) badges.push('creator');
  if (balance > 0n && top.some((p) => sameWallet(p.wallet, c.author))) badges.push('top_holder');
  return {
    commentId: c.commentId,
    tokenId: c.tokenId,
    network: c.network,
    author: c.author,
    text: c.hiddenAt === null ? c.text : null,
    hidden: c.hiddenAt !== null,
    hiddenAt: c.hiddenAt?.toISOString() ?? null,
    replyTo: c.replyTo,
    createdAt: c.createdAt.toISOString(),
    holding: { balance: formatTokens(balance), share: sold > 0n ? formatRatio(balance, sold, 6) : '0' },
    badges,
  };
}
