import type { Network } from '../domain/network.js';
import type { NewEvent, StoredEvent } from '../domain/event.js';

export interface EventFilter {
  tokenId?: string | undefined;
  network?: Network | undefined;
}

/**
 * The outbox of docs/api.md "Events": appended in the transaction of the change it describes.
 * An append answers nothing back (its id is the log's to give): a store may send it with the
 * unit's other writes, and a failure then fails the unit at its next statement or its commit.
 */
export interface EventLog {
  append(event: NewEvent): Promise<void>;
  /** Appends `events` in their order (consecutive ids) — as `append` one by one, in one statement where the store can. */
  appendAll(events: readonly NewEvent[]): Promise<void>;
  /** Events with id > afterId, ascending, at most `limit`. */
  readAfter(afterId: number, filter: EventFilter, limit: number): Promise<StoredEvent[]>;
  /**
   * Withholds a hidden comment's text from the log (docs/api.md "Comments": what was hidden is
   * never served again): every `comment.posted` of `commentId` (a comment of `tokenId`) gets
   * `comment` as its `data.comment`, in the unit's transaction. Answers the `paymentId`s those
   * events named, so the caller can withhold the paid answers stored with them as well.
   */
  withholdComment(tokenId: string, commentId: string, comment: unknown): Promise<string[]>;
  /** The last id (0 when none): of the whole log, or of one token's events. */
  lastId(tokenId?: string): Promise<number>;
}
