import type { Comment } from '../../../domain/comment.js';
import type { Network } from '../../../domain/network.js';
import type { CommentStore } from '../../../ports/comment-store.js';
import type { Page, PageRequest } from '../../../ports/page.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import { ms, type Sql } from './sql.js';
import { Table } from './table.js';

const COMMENTS = new Table<Comment>(
  'comments',
  {
    comment_id: (c) => c.commentId,
    token_id: (c) => c.tokenId,
    network: (c) => c.network,
    author: (c) => c.author,
    text: (c) => c.text,
    reply_to: (c) => c.replyTo,
    created_at: (c) => c.createdAt.getTime(),
    hidden_at: (c) => c.hiddenAt?.getTime() ?? null,
  },
  (r) => ({
    commentId: String(r.comment_id),
    tokenId: String(r.token_id),
    network: r.network as Network,
    author: String(r.author),
    text: String(r.text),
    replyTo: (r.reply_to as string | null) ?? null,
    createdAt: ms(r.created_at),
    hiddenAt: r.hidden_at === null || r.hidden_at === undefined ? null : ms(r.hidden_at),
  }),
);

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export class MikroOrmCommentStore implements CommentStore {
  constructor(private readonly sql: Sql) {}

  async add(comment: Comment): Promise<void> {
    await this.sql.all(COMMENTS.insert, COMMENTS.values(comment));
  }

  async get(commentId: string): Promise<Comment | null> {
    const r = await this.sql.one(`select ${COMMENTS.select(this.sql)} from comments where comment_id = ?`, [commentId]);
    return r ? COMMENTS.fromRow(r) : null;
  }

  async hide(commentId: string, at: Date): Promise<boolean> {
    const rows = await this.sql.all(`update comments set hidden_at = ? where comment_id = ? and hidden_at is null returning comment_id`, [at.getTime(), commentId]);
    return rows.length > 0;
  }

  async threads(tokenId: string, page: PageRequest): Promise<Page<Comment>> {
    const after = page.cursor ? decodeCursor(page.cursor, ['id'] as const).id : null;
    const rows = await this.sql.all(
      `select ${COMMENTS.select(this.sql)} from comments where token_id = ? and reply_to is null ${after ? 'and comment_id < ?' : ''} order by comment_id desc limit ?`,
      after ? [tokenId, after, page.limit + 1] : [tokenId, page.limit + 1],
    );
    const items = rows.slice(0, page.limit).map(COMMENTS.fromRow);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > page.limit && last ? encodeCursor({ id: last.commentId }) : null };
  }

  async replies(parentIds: readonly string[]): Promise<Comment[]> {
    if (parentIds.length === 0) return [];
    const rows = await this.sql.all(
      `select ${COMMENTS.select(this.sql)} from comments where reply_to in (${marks(parentIds.length)}) order by comment_id`,
      [...parentIds],
    );
    return rows.map(COMMENTS.fromRow);
  }
}
