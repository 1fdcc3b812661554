import type { Network } from '../../../domain/network.js';
import type { Quote } from '../../../domain/quote.js';
import type { QuoteStore } from '../../../ports/quote-store.js';
import { big, num } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';

const COLUMNS = ['quote_id', 'token_id', 'network', 'side', 'usd_amount', 'tokens', 'min_out', 'fee_usd', 'slippage_bps', 'provider', 'created_at', 'expires_at'];
const COLS = COLUMNS.join(', ');
const cols = (sql: Sql, prefix = '') => sql.columns(COLUMNS, ['usd_amount', 'tokens', 'min_out', 'fee_usd'], prefix);

const rowToQuote = (r: Row): Quote => ({
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
});

export class MikroOrmQuoteStore implements QuoteStore {
  constructor(private readonly sql: Sql) {}

  async save(q: Quote, holdKey?: string): Promise<void> {
    await this.sql.all(`insert into quotes (${COLS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      q.quoteId, q.tokenId, q.network, q.side, num(q.usdAmount), num(q.tokens), num(q.minOut), num(q.feeUsd),
      Number(q.slippageBps), q.provider, q.createdAt.getTime(), q.expiresAt.getTime(),
    ]);
    if (holdKey !== undefined) {
      await this.sql.all(
        `insert into quote_holds (hold_key, quote_id) values (?, ?) on conflict (hold_key) do update set quote_id = excluded.quote_id`,
        [holdKey, q.quoteId],
      );
    }
  }

  async get(quoteId: string): Promise<Quote | null> {
    const r = await this.sql.one(`select ${cols(this.sql)} from quotes where quote_id = ?`, [quoteId]);
    return r ? rowToQuote(r) : null;
  }

  async getHeld(holdKey: string, now: Date): Promise<Quote | null> {
    const r = await this.sql.one(
      `select ${cols(this.sql, 'q.')} from quote_holds h join quotes q on q.quote_id = h.quote_id where h.hold_key = ? and q.expires_at > ?`,
      [holdKey, now.getTime()],
    );
    return r ? rowToQuote(r) : null;
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
