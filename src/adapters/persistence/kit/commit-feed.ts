/**
 * The in-process half of a ChangeFeed, shared by the units of work: the token ids whose events a
 * unit of work appended reach the subscribers as soon as the unit commits — before its caller
 * can answer anyone — so this process never serves a view older than its own writes. A feed
 * across processes (PostgreSQL LISTEN/NOTIFY) adds the other processes' commits to it.
 */
import type { NewEvent } from '../../../domain/event.js';
import type { ChangeFeed } from '../../../ports/change-feed.js';
import type { EventLog } from '../../../ports/event-log.js';

export class CommitFeed implements ChangeFeed {
  private readonly listeners = new Set<(tokenId: string | null) => void>();

  constructor(private isLive: () => boolean = () => true) {}

  get live(): boolean {
    return this.isLive();
  }

  subscribe(listener: (tokenId: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every subscriber; `null`: anything may have changed. */
  emit(tokenId: string | null): void {
    for (const listener of this.listeners) listener(tokenId);
  }

  /** The tokens a unit of work appended events for, after it committed. */
  committed(tokenIds: ReadonlySet<string>): void {
    for (const tokenId of tokenIds) this.emit(tokenId);
  }
}

/** An event log that notes the token of every event appended through it (for CommitFeed.committed). */
export function notingTokens(events: EventLog, touched: Set<string>): EventLog {
  return {
    append: async (e: NewEvent): Promise<void> => {
      await events.append(e);
      if (e.tokenId) touched.add(e.tokenId);
    },
    appendAll: async (es: readonly NewEvent[]): Promise<void> => {
      await events.appendAll(es);
      for (const e of es) if (e.tokenId) touched.add(e.tokenId);
    },
    withholdComment: (tokenId, commentId, comment) => events.withholdComment(tokenId, commentId, comment),
    readAfter: (afterId, filter, limit) => events.readAfter(afterId, filter, limit),
    lastId: (tokenId) => events.lastId(tokenId),
  };
}
