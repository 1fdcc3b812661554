import type { Network } from '../domain/network.js';
import type { NewEvent, StoredEvent } from '../domain/event.js';

export interface EventFilter {
  tokenId?: string | undefined;
  network?: Network | undefined;
}

/** The outbox of docs/api.md "Events": appended in the transaction of the change it describes. */
export interface EventLog {
  append(event: NewEvent): Promise<StoredEvent>;
  /** Appends `events` in their order (consecutive ids) — as `append` one by one, in one statement where the store can. */
  appendAll(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  /** Events with id > afterId, ascending, at most `limit`. */
  readAfter(afterId: number, filter: EventFilter, limit: number): Promise<StoredEvent[]>;
  /** The last id (0 when none): of the whole log, or of one token's events. */
  lastId(tokenId?: string): Promise<number>;
}
