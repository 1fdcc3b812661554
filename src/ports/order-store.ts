import type { Order, OrderState } from '../domain/order.js';

/** Orders that wait (docs/api.md "Orders"): each move of state a compare-and-set. */
export interface OrderStore {
  insert(order: Order): Promise<void>;
  get(orderId: string): Promise<Order | null>;
  /** `order` as it is now, if its stored state is still `from` (one winner among racing processes). */
  transition(order: Order, from: OrderState): Promise<boolean>;
  /** A wallet's orders (any letter case), newest first. */
  byWallet(wallet: string, limit: number): Promise<Order[]>;
  /** A wallet's OPEN orders (any letter case): the authorizations it has held for orders now. */
  openOf(wallet: string): Promise<Order[]>;
  /** A token's orders in `state` (OPEN: its book), oldest first. */
  ofToken(tokenId: string, state: OrderState): Promise<Order[]>;
  /** The tokens with an OPEN order, and the orders left EXECUTING (a crash mid-execution), for the executor's pass. */
  tokensWithOpen(): Promise<string[]>;
  executing(limit: number): Promise<Order[]>;
  /** OPEN orders whose expiresAt is at or before `now`, oldest expiry first. */
  expired(now: Date, limit: number): Promise<Order[]>;
  /** How many orders are OPEN (the metric). */
  countOpen(): Promise<number>;
}
