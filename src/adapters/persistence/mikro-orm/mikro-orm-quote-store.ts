import type { Network } from '../../../domain/network.js';
import type { Quote } from '../../../domain/quote.js';
import type { QuoteStore } from '../../../ports/quote-store.js';
import { big } from './exact-bigint-type.js';
import { ms, type Sql } from './sql.js';
import { exactInt, Table } from './table.js';

const QUOTES = new Table<Quote>(
  'quotes',
  {
    quote_id: (q) => q.quoteId,
    token_id: (q) => q.tokenId,
    network: (q) => q.network,
    side: (q) => q.side,
    usd_amount: exactInt((q) => q.usdAmount),
    tokens: exactInt((q) => q.tokens),
    min_out: exactInt((q) => q.minOut),
    fee_usd: exactInt((q) => q.feeUsd),
    slippage_bps: (q) => Number(q.slippageBps),
    provider: (q) => q.provider,
    created_at: (q) => q.createdAt.getTime(),
    expires_at: (q) => q.expiresAt.getTime(),
  },
  (r) => ({
    quoteId: String(r.quote_id),
    tokenId: String(r.token_id),
    network: r.network as Network,
    side: r.side as Quote['side'],
    usdAmount: big(r.usd_amount),
    tokens: big(r.tokens),
    minOut: big(r.min_out),
    feeUsd: big(r.fee_usd),
    slippageBps: BigInt(Number(r.slippage_bps)),
    provider: String(r.provider),
    createdAt: ms(r.created_at),
    expiresAt: ms(r.expires_at),
  }),
);

export class MikroOrmQuoteStore implements QuoteStore {
  constructor(private readonly sql: Sql) {}

  async save(q: Quote, holdKey?: string): Promise<void> {
    await this.sql.all(QUOTES.insert, QUOTES.values(q));
    if (holdKey !== undefined) {
      await this.sql.all(
        `insert into quote_holds (hold_key, quote_id) values (?, ?) on conflict (hold_key) do update set quote_id = excluded.quote_id`,
        [holdKey, q.quoteId],
      );
    }
  }

  async get(quoteId: string): Promise<Quote | null> {
    const r = await this.sql.one(`select ${QUOTES.select(this.sql)} from quotes where quote_id = ?`, [quoteId]);
    return r ? QUOTES.fromRow(r) : null;
  }

  async getHeld(holdKey: string, now: Date): Promise<Quote | null> {
    const r = await this.sql.one(
      `select ${QUOTES.select(this.sql, 'q.')} from quote_holds h join quotes q on q.quote_id = h.quote_id where h.hold_key = ? and q.expires_at > ?`,
      [holdKey, now.getTime()],
    );
    return r ? QUOTES.fromRow(r) : null;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const ids = (await this.sql.all(`select quote_id from quotes where expires_at < ? order by expires_at limit ?`, [before.getTime(), limit])).map(
      (r) => String(r.quote_id),
    );
    if (ids.length === 0) return 0;
    const marks = ids.map(() => '?').join(', ');
    await this.sql.all(`delete from quote_holds where quote_id in (${marks})`, ids);
    await this.sql.all(`delete from quotes where quote_id in (${marks})`, ids);
    return ids.length;
  }
}
