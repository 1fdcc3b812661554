/** Orders in memory: a map by id; each move of state a compare-and-set on the stored state. */
import type { Order, OrderState } from '../../../domain/order.js';
import type { OrderStore } from '../../../ports/order-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const oldestFirst = (a: Order, b: Order) => a.createdAt.getTime() - b.createdAt.getTime() || (a.orderId < b.orderId ? -1 : 1);

export class MemoryOrderStore implements OrderStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async insert(order: Order): Promise<void> {
    if (this.db.orders.has(order.orderId)) throw new Error(`order ${order.orderId} exists`);
    this.db.set(this.tx, this.db.orders, order.orderId, order);
  }

  async get(orderId: string): Promise<Order | null> {
    return this.db.orders.get(orderId) ?? null;
  }

  async transition(order: Order, from: OrderState): Promise<boolean> {
    if (this.db.orders.get(order.orderId)?.state !== from) return false;
    this.db.set(this.tx, this.db.orders, order.orderId, order);
    return true;
  }

  async byWallet(wallet: string, limit: number): Promise<Order[]> {
    const lower = wallet.toLowerCase();
    return this.all((o) => o.wallet.toLowerCase() === lower).reverse().slice(0, limit);
  }

  async openOf(wallet: string): Promise<Order[]> {
    const lower = wallet.toLowerCase();
    return this.all((o) => o.state === 'OPEN' && o.wallet.toLowerCase() === lower);
  }

  async ofToken(tokenId: string, state: OrderState): Promise<Order[]> {
    return this.all((o) => o.tokenId === tokenId && o.state === state);
  }

  async tokensWithOpen(): Promise<string[]> {
    return [...new Set(this.all((o) => o.state === 'OPEN').map((o) => o.tokenId))].sort();
  }

  async executing(limit: number): Promise<Order[]> {
    return this.all((o) => o.state === 'EXECUTING').slice(0, limit);
  }

  async expired(now: Date, limit: number): Promise<Order[]> {
    return this.all((o) => o.state === 'OPEN' && o.expiresAt <= now)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit);
  }

  async countOpen(): Promise<number> {
    return this.all((o) => o.state === 'OPEN').length;
  }

  private all(keep: (o: Order) => boolean): Order[] {
    return [...this.db.orders.values()].filter(keep).sort(oldestFirst);
  }
}
