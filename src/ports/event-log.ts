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
  /** The last id (0 when none): of the whole log, or of one token's events. */
  lastId(tokenId?: string): Promise<number>;
}
