/**
 * Comments over the in-memory adapters (docs/api.md "Comments"): every rule checked in the paid
 * entrypoint's `prepare` (a refusal asks for no payment), the thread newest first with replies,
 * holdings and badges from the books in a bounded number of queries, cursor pages, and the
 * creator's hide withholding the text.
 */
import { describe, expect, it } from 'vitest';
import { MemoryMetrics } from '../../src/adapters/metrics/memory/memory-metrics.js';
import { entrypoints } from '../../src/app/catalogue.js';
import { METRICS } from '../../src/app/kit/metrics.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { checkComment, hideComment, listComments, postComment } from '../../src/app/social/comments.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { DomainError } from '../../src/domain/errors.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { Stores } from '../../src/ports/unit-of-work.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';

const WALLET_C = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

async function setup() {
  const metrics = new MemoryMetrics(METRICS);
  const deps = { ...makeDeps(), metrics };
  const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Talk', symbol: 'TALK' }), creator: WALLET_A, network: TESTNET, initialBuyUsd: parseUsd('1') });
  const buy = async (usd: string, buyer: string) => {
    const plan = await planBuy(deps, { kind: 'usd', tokenId: token.tokenId, usdAmount: parseUsd(usd) }, TESTNET);
    await buyToken(deps, { plan, buyer, network: TESTNET });
  };
  const post = async (author: string, text: string, replyTo?: string) => postComment(deps, await checkComment(deps, { tokenId: token.tokenId, text, replyTo }), author);
  return { deps, metrics, token, buy, post };
}

const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  return e instanceof DomainError ? e.code : (e as { code?: string } | null)?.code;
};

describe('comments', () => {
  it('the paid entrypoint checks every rule in prepare at the fixed price on the token’s network; a refusal is counted by code', async () => {
    const { deps, metrics, token, post } = await setup();
    const e = entrypoints().find((x) => x.name === 'token_comment')!;
    expect(e.priceRule.kind).toBe('fixed');
    expect(await e.prepare(deps, e.parse({ tokenId: token.tokenId, text: ' gm ' }))).toMatchObject({ amount: 1000n, network: TESTNET, checked: { text: 'gm', replyTo: null } });
    expect(await refusal(e.prepare(deps, e.parse({ tokenId: token.tokenId, text: 'x\u202ey' })))).toBe('COMMENT_BIDI_CONTROL');
    expect(await refusal(e.prepare(deps, e.parse({ tokenId: token.tokenId, text: '' })))).toBe('COMMENT_TEXT_EMPTY');
    expect(await refusal(e.prepare(deps, e.parse({ tokenId: 'tok_00000000000000000000000000', text: 'hi' })))).toBe('TOKEN_NOT_FOUND');
    const parent = await post(WALLET_B, 'first');
    const reply = await post(WALLET_A, 'answer', parent.commentId);
    expect(await refusal(e.prepare(deps, e.parse({ tokenId: token.tokenId, text: 'deeper', replyTo: reply.commentId })))).toBe('COMMENT_REPLY_INVALID');
    expect(await refusal(e.prepare(deps, e.parse({ tokenId: token.tokenId, text: 'where', replyTo: 'cmt_00000000000000000000000000' })))).toBe('COMMENT_NOT_FOUND');
    expect(await metrics.total('comment_refusals_total', { code: 'COMMENT_BIDI_CONTROL' })).toBe(1);
    expect(await metrics.total('comment_refusals_total')).toBe(5);
    expect(await metrics.total('comments_total', { action: 'posted' })).toBe(2);
    expect(deps.uow.db.events.filter((ev) => ev.type === 'comment.posted').map((ev) => (ev.data.comment as { text: string }).text)).toEqual(['first', 'answer']);
  });

  it('lists top-level comments newest first with replies oldest first, each author’s holding and badges, in cursor pages', async () => {
    const { deps, token, buy, post } = await setup();
    await buy('5', WALLET_B);
    const first = await post(WALLET_B, 'first');
    const second = await post(WALLET_C, 'second <img src=x onerror=alert(1)>');
    await post(WALLET_A, 'creator answers', first.commentId);
    await post(WALLET_C, 'me too', first.commentId);
    const page1 = await listComments(deps, token.tokenId, { limit: 1 });
    expect(page1.items.map((c) => [c.text, c.replies.length])).toEqual([['second <img src=x onerror=alert(1)>', 0]]);
    expect(page1.items[0]!.badges).toEqual([]);
    expect(page1.items[0]!.holding).toEqual({ balance: '0', share: '0' });
    const page2 = await listComments(deps, token.tokenId, { limit: 1, cursor: page1.nextCursor! });
    expect(page2.nextCursor).toBeNull();
    const [thread] = page2.items;
    expect(thread!.commentId).toBe(first.commentId);
    expect(thread!.badges).toEqual(['top_holder']);
    expect(Number(thread!.holding.share)).toBeGreaterThan(0.5); // $5 of $6 bought
    expect(thread!.replies.map((r) => [r.text, r.author, r.badges])).toEqual([
      ['creator answers', WALLET_A, ['creator', 'top_holder']],
      ['me too', WALLET_C, []],
    ]);
    expect(second.replyTo).toBeNull();
  });

  it('reads a page in a bounded number of queries, whatever the number of comments and authors', async () => {
    const { deps, token, post } = await setup();
    const parents = [];
    for (let i = 0; i < 6; i++) parents.push(await post(i % 2 ? WALLET_B : WALLET_C, `c${i}`));
    for (const p of parents) await post(WALLET_A, `re ${p.text}`, p.commentId);
    const counts = { positions: 0, comments: 0 };
    const run = deps.uow.run.bind(deps.uow);
    deps.uow.run = <T>(work: (s: Stores) => Promise<T>) =>
      run((s) => work({ ...s, positions: counting(s.positions, () => counts.positions++), comments: counting(s.comments, () => counts.comments++) }));
    const page = await listComments(deps, token.tokenId, { limit: 20 });
    expect(page.items).toHaveLength(6);
    expect(counts).toEqual({ positions: 2, comments: 2 });
  });

  it('the creator hides a comment: listed as hidden, its text withheld, one event; anyone else is refused; twice is once', async () => {
    const { deps, metrics, token, post } = await setup();
    const c = await post(WALLET_B, 'spam spam');
    expect(await refusal(hideComment(deps, { tokenId: token.tokenId, commentId: c.commentId, wallet: WALLET_B }))).toBe('NOT_TOKEN_CREATOR');
    const hidden = await hideComment(deps, { tokenId: token.tokenId, commentId: c.commentId, wallet: WALLET_A });
    expect(hidden).toMatchObject({ commentId: c.commentId, hidden: true, text: null, hiddenAt: '2026-11-23T12:00:00.000Z' });
    expect(await hideComment(deps, { tokenId: token.tokenId, commentId: c.commentId, wallet: WALLET_A })).toEqual(hidden);
    const [listed] = (await listComments(deps, token.tokenId, { limit: 5 })).items;
    expect(listed).toMatchObject({ hidden: true, text: null, author: WALLET_B });
    expect(JSON.stringify(await listComments(deps, token.tokenId, { limit: 5 }))).not.toContain('spam');
    expect(deps.uow.db.events.filter((ev) => ev.type === 'comment.hidden')).toHaveLength(1);
    // The event log keeps no text once hidden: the comment.posted a replay reads holds the hidden view.
    expect(JSON.stringify(deps.uow.db.events)).not.toContain('spam');
    expect(deps.uow.db.events.find((ev) => ev.type === 'comment.posted')?.data).toMatchObject({ comment: { commentId: c.commentId, hidden: true, text: null } });
    expect(await metrics.total('comments_total', { action: 'hidden' })).toBe(1);
    expect(await metrics.total('comment_refusals_total', { code: 'NOT_TOKEN_CREATOR' })).toBe(1);
    // A hidden comment takes no replies.
    expect(await refusal(checkComment(deps, { tokenId: token.tokenId, text: 're', replyTo: c.commentId }))).toBe('COMMENT_REPLY_INVALID');
  });
});

/** A store whose every call is counted. */
function counting<T extends object>(store: T, count: () => void): T {
  return new Proxy(store, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (...args: unknown[]) => (count(), (v as (...a: unknown[]) => unknown).apply(target, args)) : v;
    },
  });
}
