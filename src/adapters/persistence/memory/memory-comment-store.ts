import type { Comment } from '../../../domain/comment.js';
import type { CommentStore } from '../../../ports/comment-store.js';
import type { Page, PageRequest } from '../../../ports/page.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const byId = (a: Comment, b: Comment) => (a.commentId < b.commentId ? -1 : a.commentId > b.commentId ? 1 : 0);

export class MemoryCommentStore implements CommentStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async add(comment: Comment): Promise<void> {
    this.db.set(this.tx, this.db.comments, comment.commentId, comment);
  }

  async get(commentId: string): Promise<Comment | null> {
    return this.db.comments.get(commentId) ?? null;
  }

  async hide(commentId: string, at: Date): Promise<boolean> {
    const c = this.db.comments.get(commentId);
    if (!c || c.hiddenAt !== null) return false;
    this.db.set(this.tx, this.db.comments, commentId, { ...c, hiddenAt: at });
    return true;
  }

  async threads(tokenId: string, page: PageRequest): Promise<Page<Comment>> {
    // Comment ids are ULIDs: their order is the order of posting.
    const after = page.cursor ? decodeCursor(page.cursor, ['id'] as const).id : null;
    const rows = [...this.db.comments.values()]
      .filter((c) => c.tokenId === tokenId && c.replyTo === null && (after === null || c.commentId < after))
      .sort((a, b) => byId(b, a));
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > page.limit && last ? encodeCursor({ id: last.commentId }) : null };
  }

  async replies(parentIds: readonly string[]): Promise<Comment[]> {
    const parents = new Set(parentIds);
    return [...this.db.comments.values()].filter((c) => c.replyTo !== null && parents.has(c.replyTo)).sort(byId);
  }
}
