import type { Comment } from '../domain/comment.js';
import type { Page, PageRequest } from './page.js';

/** A token's comments (docs/api.md "Comments"): written once, hidden by the creator, never deleted. */
export interface CommentStore {
  add(comment: Comment): Promise<void>;
  get(commentId: string): Promise<Comment | null>;
  /** Marks a shown comment hidden at `at`; false when it was hidden already (or does not exist). */
  hide(commentId: string, at: Date): Promise<boolean>;
  /** A token's top-level comments (no replies), newest first (by id), a keyset page. */
  threads(tokenId: string, page: PageRequest): Promise<Page<Comment>>;
  /** The replies to these comments, oldest first (by id): one query, whatever their number. */
  replies(parentIds: readonly string[]): Promise<Comment[]>;
}
