import type { AssetQuote } from '../../../domain/asset-quote.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import { formatUsdPrice, parseUsdPrice } from '../../../domain/usd-price.js';
import type { AssetQuoteStore } from '../../../ports/asset-quote-store.js';
import { ms, type Row, type Sql } from './sql.js';

const COLS = 'hold_key, quote_id, network, asset, price, provider, observed_at, created_at, expires_at';

const rowToQuote = (r: Row): AssetQuote => ({
  holdKey: String(r.hold_key),
  quoteId: String(r.quote_id),
  network: r.network as Network,
  asset: r.asset as PaymentAsset,
  price: parseUsdPrice(String(r.price)),
  provider: String(r.provider),
  observedAt: ms(r.observed_at),
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
});

export class MikroOrmAssetQuoteStore implements AssetQuoteStore {
  constructor(private readonly sql: Sql) {}

  async hold(q: AssetQuote, now: Date): Promise<AssetQuote> {
    // One statement: an expired hold is replaced, an unexpired one wins over this quote.
    await this.sql.all(
      `insert into asset_quotes (${COLS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (hold_key) do update set quote_id = excluded.quote_id, network = excluded.network, asset = excluded.asset,
         price = excluded.price, provider = excluded.provider, observed_at = excluded.observed_at, created_at = excluded.created_at,
         expires_at = excluded.expires_at
       where asset_quotes.expires_at <= ?
       returning hold_key`,
      [q.holdKey, q.quoteId, q.network, q.asset, formatUsdPrice(q.price), q.provider, q.observedAt.getTime(), q.createdAt.getTime(),
        q.expiresAt.getTime(), now.getTime()],
    );
    const held = await this.sql.one(`select ${COLS} from asset_quotes where hold_key = ?`, [q.holdKey]);
    if (!held) throw new Error('a held asset quote vanished');
    return rowToQuote(held);
  }

  async getHeld(holdKey: string, now: Date): Promise<AssetQuote | null> {
    const r = await this.sql.one(`select ${COLS} from asset_quotes where hold_key = ? and expires_at > ?`, [holdKey, now.getTime()]);
    return r ? rowToQuote(r) : null;
  }

  async latest(holdKey: string): Promise<AssetQuote | null> {
    const r = await this.sql.one(`select ${COLS} from asset_quotes where hold_key = ?`, [holdKey]);
    return r ? rowToQuote(r) : null;
  }

  async latestOf(holdKeys: readonly string[]): Promise<Map<string, AssetQuote>> {
    if (holdKeys.length === 0) return new Map();
    const rows = await this.sql.all(`select ${COLS} from asset_quotes where hold_key in (${holdKeys.map(() => '?').join(', ')})`, [...holdKeys]);
    return new Map(rows.map((r) => [String(r.hold_key), rowToQuote(r)]));
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
