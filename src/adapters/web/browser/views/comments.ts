/**
 * A token's comment thread under its chart (docs/api.md "Comments"): newest first with replies,
 * each author's holding and badges; live from the event stream; a box that pays for a comment
 * from the browser wallet (the checkout every paid action goes through); replies; and, for the
 * token's creator, a Hide button proven by its wallet. Every comment is put in as TEXT
 * (dom.ts's `h` appends strings as text nodes): markup in a comment is shown as the characters
 * it is, and nothing in it is ever a link.
 */
import { get, readEnvelope, readUrl } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { ago, percentText, shortAddress } from '../format.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { CommentThread, CommentView, StreamEvent, Token } from '../types.js';
import { errorBox } from '../ui.js';
import { checkout } from './checkout.js';

const MAX = 500;
const BADGE_TEXT: Record<string, string> = { creator: 'creator', top_holder: 'top holder' };
/** What the service counts: code points after NFC and trimming. */
const lengthOf = (text: string) => [...text.replace(/\r\n?/g, '\n').normalize('NFC').trim()].length;
const sameWallet = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

interface Thread {
  el: HTMLElement;
  load(): Promise<void>;
  /** The event stream's handlers: a comment posted or hidden elsewhere shows here at once. */
  handlers: Record<string, (e: StreamEvent) => void>;
  /** Stops following the wallet (the page was left). */
  cleanup(): void;
}

/** The box a comment is written in and paid from (the usual checkout); `setReply` aims it at a comment. */
function composer(token: Token, box: HTMLElement, posted: (c: CommentView) => void) {
  let replyTo: CommentView | null = null;
  const text = h('textarea', { id: 'comment-text', rows: 3, placeholder: 'Say something about this token — plain text, up to 500 characters.', 'data-testid': 'comment-input' });
  const counter = h('span', { class: 'muted small', 'aria-live': 'polite' }, `0 / ${MAX}`);
  const replying = h('p', { class: 'muted small' });
  const count = () => {
    const n = lengthOf(text.value);
    counter.textContent = `${n} / ${MAX}`;
    counter.classList.toggle('down', n > MAX);
  };
  text.addEventListener('input', count);
  const setReply = (c: CommentView | null) => {
    replyTo = c;
    fill(replying, c ? ['Replying to ', shortAddress(c.author), ' ', h('button', { type: 'button', class: 'ghost small', onclick: () => setReply(null) }, 'Cancel reply')] : null);
    if (c) text.focus();
  };
  const post = async () => {
    const wallet = currentAddress() ?? (await connect().catch((e: unknown) => (fill(box, errorBox(e)), null)));
    if (!wallet) return;
    await checkout<CommentView>(box, {
      url: '/entrypoints/token_comment',
      body: { tokenId: token.tokenId, text: text.value, ...(replyTo ? { replyTo: replyTo.commentId } : {}) },
      wallet,
      what: replyTo ? `Reply to ${shortAddress(replyTo.author)} on ${token.symbol}` : `Comment on ${token.symbol}`,
      onAnswer: ({ data }) => {
        posted(data);
        text.value = '';
        count();
        setReply(null);
        announce('Your comment is posted.');
      },
    });
  };
  const form = h(
    'form',
    { class: 'comment-form', onsubmit: (e: Event) => (e.preventDefault(), void post()) },
    h('label', { for: 'comment-text' }, 'Your comment'),
    replying,
    text,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', 'data-testid': 'comment-submit' }, 'Comment'), counter),
  );
  return { form, setReply };
}

/** Hides a comment as the token's creator: the wallet signs a Sign-In-With-X proof, the service answers the comment hidden. */
async function hideAsCreator(token: Token, c: CommentView): Promise<CommentView | null> {
  const wallet = currentAddress();
  if (!wallet || !sameWallet(wallet, token.creator)) return null;
  const { proveWallet } = await import('../prove.js');
  const proof = await proveWallet(wallet, token.network, `Hide a comment on ${token.symbol} at the x402 launchpad.`);
  const res = await fetch(readUrl('hide_comment', { id: token.tokenId, commentId: c.commentId }), { method: 'POST', headers: { accept: 'application/json', 'sign-in-with-x': proof } });
  return readEnvelope<CommentView>(res);
}

export function commentsSection(token: Token, gone: () => boolean): Thread {
  const list = h('ol', { class: 'comments', 'data-testid': 'comments' });
  const more = h('div', { class: 'actions' });
  const box = h('div', { class: 'checkout' });
  const hide = (c: CommentView) =>
    hideAsCreator(token, c).then(
      (hidden) => hidden && (place(hidden), announce('The comment is hidden.')),
      (e: unknown) => fill(box, errorBox(e)),
    );
  const node = (c: CommentView, canReply: boolean): HTMLElement => commentNode(token, c, { reply: canReply && !c.hidden ? () => compose.setReply(c) : null, hide: () => void hide(c) });
  const place = (c: CommentView | CommentThread) => {
    const existing = document.getElementById(`comment-${c.commentId}`);
    if (existing) {
      // Hidden since: the same place, its text gone; its replies stay.
      const replies = existing.querySelector(':scope > ol.replies');
      const fresh = node(c, c.replyTo === null);
      if (replies) fresh.querySelector(':scope > ol.replies')?.replaceWith(replies);
      existing.replaceWith(fresh);
      return;
    }
    list.querySelector('li.empty')?.remove();
    if (c.replyTo === null) {
      list.prepend(node(c, true));
      for (const r of 'replies' in c ? c.replies : []) place(r);
    } else {
      document.getElementById(`comment-${c.replyTo}`)?.querySelector(':scope > ol.replies')?.append(node(c, false));
    }
  };
  const compose = composer(token, box, place);
  const threadNode = (c: CommentThread) => {
    const el = node(c, true);
    const replies = el.querySelector(':scope > ol.replies')!;
    for (const r of c.replies) replies.append(node(r, false));
    return el;
  };

  let cursor: string | null = null;
  const page = async (append: boolean) => {
    const r = await get<{ items: CommentThread[]; nextCursor: string | null }>(readUrl('list_comments', { id: token.tokenId }, { limit: 20, cursor: append ? cursor : undefined }));
    if (gone()) return;
    if (!append) fill(list, r.items.length ? null : h('li', { class: 'empty muted' }, 'No comments yet. Be the first: it costs a tenth of a cent, which keeps the bots away.'));
    // Newest first: a page is placed oldest first so each prepend lands on top; older pages go below.
    if (append) for (const c of r.items) list.append(threadNode(c));
    else for (const c of [...r.items].reverse()) place(c);
    cursor = r.nextCursor;
    fill(more, cursor ? h('button', { type: 'button', class: 'ghost', onclick: () => void page(true) }, 'Older comments') : null);
  };

  const el = h('section', { class: 'panel', 'aria-labelledby': 'comments-title' }, h('h2', { id: 'comments-title' }, 'Comments ', h('span', { class: 'live-dot', title: 'live' }, 'live')), compose.form, box, list, more);
  // The creator's Hide buttons come and go with the connected wallet.
  const unwatch = onWalletChange(() => void page(false).catch(() => undefined));
  const shown = (e: StreamEvent) => place((e.data as { comment: CommentView }).comment);
  return { el, load: () => page(false), cleanup: () => void unwatch(), handlers: { 'comment.posted': shown, 'comment.hidden': shown } };
}

/** One comment: author, badges, holding, time, its text as text (or that it was hidden), and its actions. */
function commentNode(token: Token, c: CommentView, actions: { reply: (() => void) | null; hide: () => void }): HTMLElement {
  const badges = c.badges.map((b) => h('span', { class: `badge badge-${b}`, 'data-testid': `badge-${b}` }, BADGE_TEXT[b] ?? b));
  const canHide = !c.hidden && sameWallet(currentAddress(), token.creator);
  return h(
    'li',
    { id: `comment-${c.commentId}`, class: c.hidden ? 'comment hidden' : 'comment', 'data-testid': 'comment', 'data-comment-id': c.commentId },
    h(
      'p',
      { class: 'comment-meta small' },
      h('a', { href: `#/wallet/${c.author}`, title: c.author }, shortAddress(c.author)),
      ' ',
      badges,
      ' ',
      h('span', { class: 'muted', title: `holds ${c.holding.balance} ${token.symbol}` }, `holds ${percentText(c.holding.share)}`),
      ' · ',
      h('time', { datetime: c.createdAt, title: c.createdAt }, ago(c.createdAt)),
    ),
    c.hidden || c.text === null
      ? h('p', { class: 'comment-text muted', 'data-testid': 'comment-hidden' }, 'Hidden by the token’s creator.')
      : h('p', { class: 'comment-text', 'data-testid': 'comment-text' }, c.text),
    h(
      'p',
      { class: 'comment-actions' },
      actions.reply ? h('button', { type: 'button', class: 'ghost small', onclick: actions.reply }, 'Reply') : null,
      canHide ? h('button', { type: 'button', class: 'ghost small', 'data-testid': 'comment-hide', onclick: actions.hide }, 'Hide') : null,
    ),
    c.replyTo === null ? h('ol', { class: 'replies' }) : null,
  );
}
