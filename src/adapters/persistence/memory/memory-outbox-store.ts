/** Any outbox table in memory: items by id, and the id of each source (one item per source). */
import type { OutboxFields, OutboxState } from '../../../domain/outbox.js';
import type { OutboxBacklog, OutboxStore } from '../../../ports/outbox-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export interface MemoryOutboxTable<T> {
  items: Map<string, T>;
  sources: Map<string, string>;
  idOf(item: T): string;
  /** Which PENDING or SENT items `due` may return (default: all). */
  dueWhen?(item: T): boolean;
}

export class MemoryOutboxStore<T extends OutboxFields> implements OutboxStore<T> {
  constructor(
    protected readonly db: MemoryDatabase,
    protected readonly tx: MemoryTx | null,
    protected readonly table: MemoryOutboxTable<T>,
  ) {}

  async enqueue(item: T): Promise<T> {
    const existing = this.table.sources.get(item.sourceId);
    if (existing !== undefined) return this.table.items.get(existing)!;
    const id = this.table.idOf(item);
    this.db.set(this.tx, this.table.sources, item.sourceId, id);
    this.db.set(this.tx, this.table.items, id, item);
    return item;
  }

  async add(item: T): Promise<void> {
    if (this.table.sources.has(item.sourceId)) throw new Error(`an item for ${item.sourceId} is already queued`);
    await this.enqueue(item);
  }

  async get(id: string): Promise<T | null> {
    return this.table.items.get(id) ?? null;
  }

  async findBySource(sourceId: string): Promise<T | null> {
    const id = this.table.sources.get(sourceId);
    return id === undefined ? null : (this.table.items.get(id) ?? null);
  }

  async update(next: T, from: OutboxState): Promise<boolean> {
    const id = this.table.idOf(next);
    const current = this.table.items.get(id);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.table.items, id, next);
    return true;
  }

  async move(next: T, from: OutboxState, lost: () => Error): Promise<void> {
    if (!(await this.update(next, from))) throw lost();
  }

  async due(now: Date, limit: number): Promise<T[]> {
    return [...this.table.items.values()]
      .filter((p) => (p.state === 'PENDING' || p.state === 'SENT') && p.nextAttemptAt <= now && (this.table.dueWhen?.(p) ?? true))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (this.table.idOf(a) < this.table.idOf(b) ? -1 : 1))
      .slice(0, limit);
  }

  async backlog(): Promise<OutboxBacklog> {
    const open = [...this.table.items.values()].filter((i) => i.state === 'PENDING' || i.state === 'SENT');
    const oldest = open.reduce<Date | null>((min, i) => (min === null || i.createdAt < min ? i.createdAt : min), null);
    return { pending: open.filter((i) => i.state === 'PENDING').length, sent: open.filter((i) => i.state === 'SENT').length, oldestCreatedAt: oldest };
  }
}
