/** Orders (migration 0016): one row per order; each move of state an update guarded by the state it leaves. */
import type { Network, PaymentAsset } from '../../../domain/network.js';
import type { Order, OrderKind, OrderState } from '../../../domain/order.js';
import { authorizationFromText, authorizationToText, type TokenAuthorization, type TokenAuthorizationText } from '../../../domain/token-authorization.js';
import type { OrderStore } from '../../../ports/order-store.js';
import { big } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const bigOrNull = (v: unknown): bigint | null => (v === null || v === undefined ? null : big(v));
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function authorizationOf(text: unknown): TokenAuthorization {
  return authorizationFromText(JSON.parse(String(text)) as TokenAuthorizationText);
}

const authorizationText = (a: TokenAuthorization) => JSON.stringify(authorizationToText(a));

const ORDERS = new Table<Order>(
  'orders',
  {
    order_id: (o) => o.orderId,
    network: (o) => o.network,
    token_id: (o) => o.tokenId,
    wallet: (o) => o.wallet,
    wallet_lower: writeOnly((o) => o.wallet.toLowerCase()),
    kind: (o) => o.kind,
    trigger_price: exactInt((o) => o.triggerPrice),
    usd_amount: exactInt((o) => o.usdAmount),
    tokens: exactInt((o) => o.tokens),
    min_tokens_out: exactInt((o) => o.minTokensOut),
    min_usd_out: exactInt((o) => o.minUsdOut),
    asset: (o) => o.asset,
    signed_authorization: (o) => authorizationText(o.authorization),
    expires_at: (o) => o.expiresAt.getTime(),
    state: (o) => o.state,
    reason: (o) => o.reason,
    trade_id: (o) => o.tradeId,
    payment_id: (o) => o.paymentId,
    created_at: (o) => o.createdAt.getTime(),
    updated_at: (o) => o.updatedAt.getTime(),
  },
  (r: Row) => ({
    orderId: String(r.order_id),
    network: String(r.network) as Network,
    tokenId: String(r.token_id),
    wallet: String(r.wallet),
    kind: String(r.kind) as OrderKind,
    triggerPrice: big(r.trigger_price),
    usdAmount: bigOrNull(r.usd_amount),
    tokens: bigOrNull(r.tokens),
    minTokensOut: bigOrNull(r.min_tokens_out),
    minUsdOut: bigOrNull(r.min_usd_out),
    asset: textOrNull(r.asset) as PaymentAsset | null,
    authorization: authorizationOf(r.signed_authorization),
    expiresAt: ms(r.expires_at),
    state: String(r.state) as OrderState,
    reason: textOrNull(r.reason),
    tradeId: textOrNull(r.trade_id),
    paymentId: textOrNull(r.payment_id),
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);

const MOVED = ['state', 'reason', 'trade_id', 'updated_at'] as const;

export class MikroOrmOrderStore implements OrderStore {
  constructor(private readonly sql: Sql) {}

  async insert(order: Order): Promise<void> {
    await this.sql.all(ORDERS.insert, ORDERS.values(order));
  }

  async get(orderId: string): Promise<Order | null> {
    const row = await this.sql.one(`select ${ORDERS.select(this.sql)} from orders where order_id = ?`, [orderId]);
    return row ? ORDERS.fromRow(row) : null;
  }

  async transition(order: Order, from: OrderState): Promise<boolean> {
    const rows = await this.sql.all(`${ORDERS.update(MOVED)} where order_id = ? and state = ? returning order_id`, [
      ...ORDERS.valuesOf(MOVED, order),
      order.orderId,
      from,
    ]);
    return rows.length === 1;
  }

  byWallet(wallet: string, limit: number): Promise<Order[]> {
    return this.where('wallet_lower = ? order by created_at desc, order_id desc limit ?', [wallet.toLowerCase(), limit]);
  }

  openOf(wallet: string): Promise<Order[]> {
    return this.where(`wallet_lower = ? and state = 'OPEN' order by created_at, order_id`, [wallet.toLowerCase()]);
  }

  ofToken(tokenId: string, state: OrderState): Promise<Order[]> {
    return this.where('token_id = ? and state = ? order by created_at, order_id', [tokenId, state]);
  }

  async tokensWithOpen(): Promise<string[]> {
    return (await this.sql.all(`select distinct token_id from orders where state = 'OPEN' order by token_id`)).map((r) => String(r.token_id));
  }

  executing(limit: number): Promise<Order[]> {
    return this.where(`state = 'EXECUTING' order by created_at, order_id limit ?`, [limit]);
  }

  expired(now: Date, limit: number): Promise<Order[]> {
    return this.where(`state = 'OPEN' and expires_at <= ? order by expires_at, order_id limit ?`, [now.getTime(), limit]);
  }

  async countOpen(): Promise<number> {
    return Number((await this.sql.one(`select count(*) as n from orders where state = 'OPEN'`))?.n ?? 0);
  }

  private async where(clause: string, params: unknown[]): Promise<Order[]> {
    return (await this.sql.all(`select ${ORDERS.select(this.sql)} from orders where ${clause}`, params)).map(ORDERS.fromRow);
  }
}
