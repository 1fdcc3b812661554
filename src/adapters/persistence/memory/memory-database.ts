/**
 * The in-memory database behind the memory stores: plain maps, one writer at a time, and an
 * undo journal per transaction so a failed unit of work leaves nothing behind.
 */
import type { AssetQuote } from '../../../domain/asset-quote.js';
import type { ChainIdentity } from '../../../domain/chain-identity.js';
import type { Channel } from '../../../domain/channel.js';
import type { StoredEvent } from '../../../domain/event.js';
import type { Order } from '../../../domain/order.js';
import type { Payment } from '../../../domain/payment.js';
import type { Delivery } from '../../../domain/delivery.js';
import type { DeliveryBatch } from '../../../domain/delivery-batch.js';
import type { StoredImage } from '../../../domain/image.js';
import type { Graduation } from '../../../domain/graduation.js';
import type { Deployment } from '../../../domain/deployment.js';
import type { Comment } from '../../../domain/comment.js';
import type { Earning } from '../../../domain/earnings.js';
import type { Payout } from '../../../domain/payout.js';
import type { Position } from '../../../domain/position.js';
import type { Quote } from '../../../domain/quote.js';
import type { Pledge, Raise } from '../../../domain/raise.js';
import type { Token } from '../../../domain/token.js';
import type { Trade } from '../../../domain/trade.js';
import type { CustodyIntent } from '../../../ports/custody-intent-store.js';
import type { NotSent } from '../../../ports/custody-transaction-store.js';
import type { PaymentIdentifierRecord } from '../../../ports/payment-identifier-store.js';
import type { SharedSetting } from '../../../ports/shared-settings-store.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import type { PoolSwap } from '../../../ports/pool-swap-store.js';
import type { Holder } from '../../../ports/held-authorization-store.js';
import type { TokenPull } from '../../../ports/token-pull-store.js';
import type { BookedTransfer, TransferCursor } from '../../../ports/transfer-store.js';

/** A transaction's journal; null outside a transaction (writes are then immediate). */
export class MemoryTx {
  private readonly undo: (() => void)[] = [];
  onRollback(fn: () => void): void {
    this.undo.push(fn);
  }
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
  }
}

export class MemoryDatabase {
  readonly tokens = new Map<string, Token>();
  readonly trades: Trade[] = [];
  readonly positions = new Map<string, Position>();
  readonly payments = new Map<string, Payment>();
  readonly paymentNonces = new Map<string, string>();
  readonly responses = new Map<string, StoredResponse>();
  readonly payouts = new Map<string, Payout>();
  readonly payoutSources = new Map<string, string>();
  readonly quotes = new Map<string, Quote>();
  readonly heldQuotes = new Map<string, string>();
  /** hold key → the asset quote held under it. */
  readonly assetQuotes = new Map<string, AssetQuote>();
  readonly events: StoredEvent[] = [];
  readonly paymentIds = new Map<string, PaymentIdentifierRecord>();
  /** "wallet_lower|nonce" → when the proof expires. */
  readonly proofNonces = new Map<string, Date>();
  /** "wallet_lower|resource" → until when access is granted. */
  readonly accessGrants = new Map<string, Date>();
  readonly deployments = new Map<string, Deployment>();
  readonly deploymentSources = new Map<string, string>();
  readonly deliveries = new Map<string, Delivery>();
  readonly deliverySources = new Map<string, string>();
  readonly deliveryBatches = new Map<string, DeliveryBatch>();
  readonly pulls = new Map<string, TokenPull | NotSent>();
  readonly swaps = new Map<string, PoolSwap | NotSent>();
  readonly graduations = new Map<string, Graduation>();
  readonly graduationSources = new Map<string, string>();
  readonly transferCursors = new Map<string, TransferCursor>();
  /** "network|txHash_lower|txLogIndex" → the booked transfer. */
  readonly bookedTransfers = new Map<string, BookedTransfer>();
  /** earningId → the fee share a creator or referrer earned. */
  readonly earnings = new Map<string, Earning>();
  /** "kind|paymentId" → what was asked of custody's signer. */
  readonly custodyIntents = new Map<string, CustodyIntent>();
  /** name → what every process must agree on. */
  readonly sharedSettings = new Map<string, SharedSetting>();
  /** network → which chain its books were kept on. */
  readonly chainIdentities = new Map<string, ChainIdentity>();
  /** commentId → a comment on a token (docs/api.md "Comments"). */
  readonly comments = new Map<string, Comment>();
  /** sha256 → a token image (content-addressed). */
  readonly images = new Map<string, StoredImage>();
  /** tokenId → a fair launch's raise; pledgeId → a pledge to one. */
  readonly raises = new Map<string, Raise>();
  readonly pledges = new Map<string, Pledge>();
  /** orderId → the order (docs/api.md "Orders"). */
  readonly orders = new Map<string, Order>();
  /** "network|asset|wallet|nonce" → who holds that signed authorization (docs/decisions/0067). */
  readonly heldAuthorizations = new Map<string, Holder>();
  /** channelId (lower case) → a payment channel (docs/payments.md "Pay once, call many"). */
  readonly channels = new Map<string, Channel>();

  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` alone: the memory equivalent of the database write lock. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }

  set<K, V>(tx: MemoryTx | null, map: Map<K, V>, key: K, value: V): void {
    const had = map.has(key);
    const previous = map.get(key);
    map.set(key, value);
    tx?.onRollback(() => (had ? map.set(key, previous as V) : map.delete(key)));
  }

  delete<K, V>(tx: MemoryTx | null, map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    const previous = map.get(key) as V;
    map.delete(key);
    tx?.onRollback(() => map.set(key, previous));
  }

  push<V>(tx: MemoryTx | null, list: V[], value: V): void {
    list.push(value);
    // Journals undo in reverse order, so the last pushed is the one popped.
    tx?.onRollback(() => list.pop());
  }
}
