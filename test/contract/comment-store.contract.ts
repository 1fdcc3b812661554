/**
 * Comments on tokens: a token's top-level comments newest first in keyset pages, the replies of
 * a page in one call oldest first, and a hide that takes once.
 */
import { describe, expect, it } from 'vitest';
import type { Comment } from '../../src/domain/comment.js';
import { TESTNET } from '../../src/domain/network.js';
import { at, OTHER, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const ULID_TAIL = '0000000000000000000000';
const comment = (n: number, over: Partial<Comment> = {}): Comment => ({
  commentId: `cmt_${String(n).padStart(4, '0')}${ULID_TAIL}`,
  tokenId: 'tok_A',
  network: TESTNET,
  author: WALLET,
  text: `comment ${n} — ünïcödé\nsecond line <img src=x onerror=alert(1)>`,
  replyTo: null,
  createdAt: at(n),
  hiddenAt: null,
  ...over,
});

export function commentStoreContract(name: string, make: UowFactory) {
  describe(`CommentStore contract: ${name}`, () => {
    it('stores a comment exactly and lists a token’s top-level comments newest first, in pages', () =>
      withUow(make, async (uow) => {
        const first = comment(1);
        await uow.transaction(async (s) => {
          await s.comments.add(first);
          await s.comments.add(comment(2, { author: OTHER }));
          await s.comments.add(comment(3, { replyTo: first.commentId }));
          await s.comments.add(comment(4));
          await s.comments.add(comment(5, { tokenId: 'tok_B' }));
        });
        expect(await uow.run((s) => s.comments.get(first.commentId))).toEqual(first);
        expect(await uow.run((s) => s.comments.get('cmt_none'))).toBeNull();
        const page1 = await uow.run((s) => s.comments.threads('tok_A', { limit: 2 }));
        expect(page1.items.map((c) => c.commentId)).toEqual([comment(4).commentId, comment(2).commentId]);
        const page2 = await uow.run((s) => s.comments.threads('tok_A', { limit: 2, cursor: page1.nextCursor! }));
        expect(page2).toEqual({ items: [first], nextCursor: null });
      }));

    it('lists the replies of several comments in one call, oldest first', () =>
      withUow(make, async (uow) => {
        const [a, b] = [comment(1), comment(2)];
        await uow.transaction(async (s) => {
          for (const c of [a, b, comment(5, { replyTo: b.commentId }), comment(3, { replyTo: a.commentId, author: OTHER }), comment(4, { replyTo: a.commentId }), comment(6)]) {
            await s.comments.add(c);
          }
        });
        const replies = await uow.run((s) => s.comments.replies([a.commentId, b.commentId]));
        expect(replies.map((c) => [c.commentId, c.replyTo])).toEqual([
          [comment(3).commentId, a.commentId],
          [comment(4).commentId, a.commentId],
          [comment(5).commentId, b.commentId],
        ]);
        expect(await uow.run((s) => s.comments.replies([]))).toEqual([]);
      }));

    it('hides a shown comment once, and keeps its row', () =>
      withUow(make, async (uow) => {
        const c = comment(1);
        await uow.transaction((s) => s.comments.add(c));
        expect(await uow.transaction((s) => s.comments.hide(c.commentId, at(10)))).toBe(true);
        expect(await uow.transaction((s) => s.comments.hide(c.commentId, at(20)))).toBe(false);
        expect(await uow.transaction((s) => s.comments.hide('cmt_none', at(20)))).toBe(false);
        expect(await uow.run((s) => s.comments.get(c.commentId))).toEqual({ ...c, hiddenAt: at(10) });
      }));

    it('a comment added in a transaction that fails is not kept', () =>
      withUow(make, async (uow) => {
        await expect(
          uow.transaction(async (s) => {
            await s.comments.add(comment(1));
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await uow.run((s) => s.comments.get(comment(1).commentId))).toBeNull();
      }));
  });
}
