import type { AssetQuote } from '../../../domain/asset-quote.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import { formatUsdPrice, parseUsdPrice } from '../../../domain/usd-price.js';
import type { AssetQuoteStore } from '../../../ports/asset-quote-store.js';
import { ms, type Sql } from './sql.js';
import { Table } from './table.js';

const ASSET_QUOTES = new Table<AssetQuote>(
  'asset_quotes',
  {
    hold_key: (q) => q.holdKey,
    quote_id: (q) => q.quoteId,
    network: (q) => q.network,
    asset: (q) => q.asset,
    price: (q) => formatUsdPrice(q.price),
    provider: (q) => q.provider,
    observed_at: (q) => q.observedAt.getTime(),
    created_at: (q) => q.createdAt.getTime(),
    expires_at: (q) => q.expiresAt.getTime(),
  },
  (r) => ({
    holdKey: String(r.hold_key),
    quoteId: String(r.quote_id),
    network: r.network as Network,
    asset: r.asset as PaymentAsset,
    price: parseUsdPrice(String(r.price)),
    provider: String(r.provider),
    observedAt: ms(r.observed_at),
    createdAt: ms(r.created_at),
    expiresAt: ms(r.expires_at),
  }),
);
/**
 * One statement: an expired hold is replaced, an unexpired one wins over this quote. A row comes
 * back only when this quote was written (it is then the hold, with nothing to read back).
 */
const HOLD = `${ASSET_QUOTES.upsert(['hold_key'])} where asset_quotes.expires_at <= ? returning hold_key`;

export class MikroOrmAssetQuoteStore implements AssetQuoteStore {
  constructor(private readonly sql: Sql) {}

  async hold(q: AssetQuote, now: Date): Promise<AssetQuote> {
    if ((await this.sql.all(HOLD, [...ASSET_QUOTES.values(q), now.getTime()])).length === 1) return q;
    const held = await this.sql.one(`select ${ASSET_QUOTES.select(this.sql)} from asset_quotes where hold_key = ?`, [q.holdKey]);
    if (!held) throw new Error('a held asset quote vanished');
    return ASSET_QUOTES.fromRow(held);
  }

  async getHeld(holdKey: string, now: Date): Promise<AssetQuote | null> {
    const r = await this.sql.one(`select ${ASSET_QUOTES.select(this.sql)} from asset_quotes where hold_key = ? and expires_at > ?`, [holdKey, now.getTime()]);
    return r ? ASSET_QUOTES.fromRow(r) : null;
  }

  async latest(holdKey: string): Promise<AssetQuote | null> {
    const r = await this.sql.one(`select ${ASSET_QUOTES.select(this.sql)} from asset_quotes where hold_key = ?`, [holdKey]);
    return r ? ASSET_QUOTES.fromRow(r) : null;
  }

  async latestOf(holdKeys: readonly string[]): Promise<Map<string, AssetQuote>> {
    if (holdKeys.length === 0) return new Map();
    const rows = await this.sql.all(`select ${ASSET_QUOTES.select(this.sql)} from asset_quotes where hold_key in (${holdKeys.map(() => '?').join(', ')})`, [...holdKeys]);
    return new Map(rows.map((r) => [String(r.hold_key), ASSET_QUOTES.fromRow(r)]));
  }

  async release(holdKey: string, quoteId: string): Promise<void> {
    await this.sql.all(`delete from asset_quotes where hold_key = ? and quote_id = ? returning hold_key`, [holdKey, quoteId]);
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const keys = (await this.sql.all(`select hold_key from asset_quotes where expires_at < ? order by expires_at limit ?`, [before.getTime(), limit])).map(
      (r) => String(r.hold_key),
    );
    if (keys.length === 0) return 0;
    await this.sql.all(`delete from asset_quotes where hold_key in (${keys.map(() => '?').join(', ')}) returning hold_key`, keys);
    return keys.length;
  }
}
