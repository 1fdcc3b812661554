/**
 * What was hidden is never served again (docs/api.md "Comments", docs/decisions/0068): a comment
 * hidden before this version still had its text in its `comment.posted` event — which a replay of
 * `/api/events` from `Last-Event-ID: 0` served — and in the answer stored with its payment, which
 * the same payment sent again is answered with. Both now hold the hidden view, as a hide does
 * from this version on (EventLog.withholdComment).
 */
import { Migration } from '@mikro-orm/migrations';

type Posted = { comment?: Record<string, unknown>; paymentId?: unknown };
type Answer = { body?: { data?: Record<string, unknown> } };

export class Migration0025HiddenCommentsWithheld extends Migration {
  override async up(): Promise<void> {
    const hidden = await this.execute(`select comment_id, token_id, hidden_at from comments where hidden_at is not null`);
    for (const c of hidden) {
      const commentId = String(c.comment_id);
      const withheld = { text: null, hidden: true, hiddenAt: new Date(Number(c.hidden_at)).toISOString() };
      const events = await this.execute(`select id, data from events where token_id = ? and type = 'comment.posted' and data like ?`, [c.token_id, `%${commentId}%`]);
      for (const e of events) {
        const data = JSON.parse(String(e.data)) as Posted;
        if (data.comment?.commentId !== commentId) continue;
        await this.execute(`update events set data = ? where id = ?`, [JSON.stringify({ ...data, comment: { ...data.comment, ...withheld } }), e.id]);
        if (typeof data.paymentId !== 'string') continue;
        const [payment] = await this.execute(`select response from payments where payment_id = ?`, [data.paymentId]);
        if (payment?.response === null || payment?.response === undefined) continue;
        const answer = JSON.parse(String(payment.response)) as Answer;
        if (answer.body?.data?.commentId !== commentId) continue;
        await this.execute(`update payments set response = ? where payment_id = ?`, [JSON.stringify({ ...answer, body: { ...answer.body, data: { ...answer.body.data, ...withheld } } }), data.paymentId]);
      }
    }
  }
}
