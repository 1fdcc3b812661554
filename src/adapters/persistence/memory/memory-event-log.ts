import type { NewEvent, StoredEvent } from '../../../domain/event.js';
import type { EventFilter, EventLog } from '../../../ports/event-log.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryEventLog implements EventLog {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async append(event: NewEvent): Promise<void> {
    this.db.push(this.tx, this.db.events, { ...event, id: this.db.events.length + 1 });
  }

  async appendAll(events: readonly NewEvent[]): Promise<void> {
    for (const e of events) await this.append(e);
  }

  async readAfter(afterId: number, filter: EventFilter, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for (let i = Math.max(0, afterId); i < this.db.events.length && out.length < limit; i++) {
      const e = this.db.events[i]!;
      if ((!filter.tokenId || e.tokenId === filter.tokenId) && (!filter.network || e.network === filter.network)) {
        out.push(e);
      }
    }
    return out;
  }

  async withholdComment(tokenId: string, commentId: string, comment: unknown): Promise<string[]> {
    const paymentIds: string[] = [];
    this.db.events.forEach((e, i) => {
      const data = e.data as { comment?: { commentId?: unknown }; paymentId?: unknown };
      if (e.tokenId !== tokenId || e.type !== 'comment.posted' || data.comment?.commentId !== commentId) return;
      this.db.events[i] = { ...e, data: { ...data, comment } };
      this.tx?.onRollback(() => (this.db.events[i] = e));
      if (typeof data.paymentId === 'string') paymentIds.push(data.paymentId);
    });
    return paymentIds;
  }

  async lastId(tokenId?: string): Promise<number> {
    if (tokenId === undefined) return this.db.events.length;
    for (let i = this.db.events.length - 1; i >= 0; i--) if (this.db.events[i]!.tokenId === tokenId) return this.db.events[i]!.id;
    return 0;
  }
}
