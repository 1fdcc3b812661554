/**
 * Upgrading a database whose comments were hidden before hides withheld their text everywhere
 * (migration 0025, docs/decisions/0068): the hidden comment's `comment.posted` event and the
 * answer stored with its payment take the hidden view; a shown comment's stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { migrateUp } from '../../../src/adapters/persistence/mikro-orm/orm-options.js';
import { MikroOrmUnitOfWork } from '../../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { TESTNET } from '../../../src/domain/network.js';
import { migrationDatabases, openBefore } from '../../support/migrations.js';

const HIDDEN_AT = 1_700_000_500_000;

describe.each(migrationDatabases('mig25'))('migration 0025 on %s', (_name, open) => {
  it('withholds the text of comments hidden before it from their events and their payments’ stored answers', async () => {
    const { url, cleanup } = open();
    try {
      const orm = await openBefore(url, 'Migration0025HiddenCommentsWithheld');
      await migrateUp(orm);
      const sql = (q: string, params: unknown[] = []) => orm.em.getConnection().execute(q, params);
      const comment = (id: string, text: string, hiddenAt: number | null) =>
        sql(`insert into comments (comment_id, token_id, network, author, text, reply_to, created_at, hidden_at) values (?, 'tok_C', ?, '0xA', ?, null, 1700000000000, ?)`, [id, TESTNET, text, hiddenAt]);
      const view = (id: string, text: string) => ({ commentId: id, tokenId: 'tok_C', text, hidden: false, hiddenAt: null, badges: [] });
      const posted = (n: number, id: string, text: string) =>
        sql(`insert into events (id, type, network, token_id, data, created_at) values (?, 'comment.posted', ?, 'tok_C', ?, 1700000000000)`, [n, TESTNET, JSON.stringify({ comment: view(id, text), paymentId: `pay_${id}` })]);
      const payment = (id: string, text: string) =>
        sql(
          `insert into payments (payment_id, network, payer, payer_lower, nonce_lower, amount, resource, request_hash, input, state, valid_before, response, created_at, updated_at)
           values (?, ?, '0xA', '0xa', ?, '1000', 'token_comment', 'h', '{}', 'SETTLED', '1', ?, 1700000000000, 1700000000000)`,
          [`pay_${id}`, TESTNET, `0x${id}`, JSON.stringify({ status: 201, headers: {}, body: { success: true, operation: 'comment_token', data: view(id, text) } })],
        );
      await comment('cmt_1', 'rug plan', HIDDEN_AT);
      await comment('cmt_10', 'still shown', null);
      await posted(1, 'cmt_1', 'rug plan');
      await posted(2, 'cmt_10', 'still shown');
      await payment('cmt_1', 'rug plan');
      await payment('cmt_10', 'still shown');
      await orm.close(true);

      const uow = await MikroOrmUnitOfWork.open({ url });
      try {
        const events = await uow.run((s) => s.events.readAfter(0, {}, 10));
        const withheld = { commentId: 'cmt_1', tokenId: 'tok_C', text: null, hidden: true, hiddenAt: new Date(HIDDEN_AT).toISOString(), badges: [] };
        expect(events.map((e) => e.data)).toEqual([
          { comment: withheld, paymentId: 'pay_cmt_1' },
          { comment: view('cmt_10', 'still shown'), paymentId: 'pay_cmt_10' },
        ]);
        expect((await uow.run((s) => s.payments.getResponse('pay_cmt_1')))?.body).toEqual({ success: true, operation: 'comment_token', data: withheld });
        expect((await uow.run((s) => s.payments.getResponse('pay_cmt_10')))?.body).toMatchObject({ data: { text: 'still shown' } });
      } finally {
        await uow.close();
      }
    } finally {
      await cleanup();
    }
  });
});
