/**
 * Payment channels (migration 0028): one row per channel; every move one update guarded by what
 * it moves from, so of racing requests one wins — on PostgreSQL a second waits for the first's
 * row lock, then finds the row changed and updates nothing. Amounts are exact (numeric(78,0) /
 * TEXT) and compared as numbers on both databases (`Sql.exact`); the sums are made here, never
 * in SQL, where SQLite's integers stop at 2^63.
 */
import { claimFloor, type Channel, type ChannelConfig } from '../../../domain/channel.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import type { ChannelStore } from '../../../ports/channel-store.js';
import { big, num } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const CHANNELS = new Table<Channel>(
  'channels',
  {
    channel_id: (c) => c.channelId.toLowerCase(),
    network: (c) => c.network,
    asset: (c) => c.asset,
    payer: (c) => c.config.payer,
    payer_lower: writeOnly((c) => c.config.payer.toLowerCase()),
    config: (c) => JSON.stringify(c.config),
    balance: exactInt((c) => c.balance),
    charged: exactInt((c) => c.charged),
    signed_max: exactInt((c) => c.signedMax),
    signature: (c) => c.signature,
    claimed: exactInt((c) => c.claimed),
    claiming: exactInt((c) => c.claiming),
    claiming_since: (c) => c.claimingSince?.getTime() ?? null,
    refund_nonce: exactInt((c) => c.refundNonce),
    created_at: (c) => c.createdAt.getTime(),
    updated_at: (c) => c.updatedAt.getTime(),
  },
  (r: Row) => ({
    channelId: String(r.channel_id),
    network: String(r.network) as Network,
    asset: String(r.asset) as PaymentAsset,
    config: JSON.parse(String(r.config)) as ChannelConfig,
    balance: big(r.balance),
    charged: big(r.charged),
    signedMax: big(r.signed_max),
    signature: r.signature === null || r.signature === undefined ? null : String(r.signature),
    claimed: big(r.claimed),
    claiming: r.claiming === null || r.claiming === undefined ? null : big(r.claiming),
    claimingSince: r.claiming_since === null || r.claiming_since === undefined ? null : ms(r.claiming_since),
    refundNonce: big(r.refund_nonce),
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);

export class MikroOrmChannelStore implements ChannelStore {
  constructor(private readonly sql: Sql) {}

  async get(channelId: string): Promise<Channel | null> {
    return (await this.where('channel_id = ?', [channelId.toLowerCase()]))[0] ?? null;
  }

  ofPayer(payer: string, limit: number): Promise<Channel[]> {
    return this.where('payer_lower = ? order by created_at desc, channel_id desc limit ?', [payer.toLowerCase(), limit]);
  }

  async funded(channel: Channel, now: Date): Promise<Channel> {
    // The chain's balance and refund nonce each taken only when above the stored one (a stale read lowers nothing).
    const x = (c: string) => this.sql.exact(c);
    const balanceUp = `${x('channels.balance')} < ${x('excluded.balance')}`;
    const nonceUp = `${x('channels.refund_nonce')} < ${x('excluded.refund_nonce')}`;
    const row = await this.sql.one(
      `${CHANNELS.insert} on conflict (channel_id) do update set
         balance = case when ${balanceUp} then excluded.balance else channels.balance end,
         refund_nonce = case when ${nonceUp} then excluded.refund_nonce else channels.refund_nonce end,
         updated_at = case when ${balanceUp} or ${nonceUp} then ? else channels.updated_at end
       returning ${CHANNELS.select(this.sql)}`,
      [...CHANNELS.values(channel), now.getTime()],
    );
    return CHANNELS.fromRow(row!);
  }

  async charge(channelId: string, c: { from: bigint; amount: bigint; voucherMax: bigint; signature: string }, now: Date): Promise<boolean> {
    // Whether the voucher covers `from + amount` is known here; whether the balance covers it, by the update.
    if (c.voucherMax < c.from + c.amount) return false;
    const rows = await this.sql.all(
      `update channels set charged = ?, signed_max = ?, signature = ?, updated_at = ?
       where channel_id = ? and charged = ? and ${this.sql.exact('?')} <= ${this.sql.exact('balance')} returning channel_id`,
      [num(c.from + c.amount), num(c.voucherMax), c.signature, now.getTime(), channelId.toLowerCase(), num(c.from), num(c.voucherMax)],
    );
    return rows.length === 1;
  }

  async uncharge(channelId: string, amount: bigint, now: Date): Promise<boolean> {
    const x = (c: string) => this.sql.exact(c);
    // Read, then a compare-and-set on the `charged` read: a charge or a claim that moved it meanwhile makes it read again.
    for (;;) {
      const channel = await this.get(channelId);
      if (!channel) return false;
      const left = channel.charged - amount;
      if (left < claimFloor(channel)) return false;
      const rows = await this.sql.all(
        `update channels set charged = ?, updated_at = ?
         where channel_id = ? and charged = ? and ${x('claimed')} <= ${x('?')} and (claiming is null or ${x('claiming')} <= ${x('?')})
         returning channel_id`,
        [num(left), now.getTime(), channel.channelId, num(channel.charged), num(left), num(left)],
      );
      if (rows.length === 1) return true;
    }
  }

  claimable(network: Network, limit: number): Promise<Channel[]> {
    return this.where(
      `network = ? and claiming is null and ${this.sql.exact('charged')} > ${this.sql.exact('claimed')} order by updated_at, channel_id limit ?`,
      [network, limit],
    );
  }

  claimsUnderWay(before: Date, limit: number): Promise<Channel[]> {
    return this.where('claiming is not null and claiming_since < ? order by claiming_since, channel_id limit ?', [before.getTime(), limit]);
  }

  async startClaim(channelId: string, total: bigint, now: Date): Promise<boolean> {
    const x = (c: string) => this.sql.exact(c);
    const rows = await this.sql.all(
      `update channels set claiming = ?, claiming_since = ?, updated_at = ?
       where channel_id = ? and claiming is null and ${x('?')} <= ${x('charged')} and ${x('claimed')} < ${x('?')} returning channel_id`,
      [num(total), now.getTime(), now.getTime(), channelId.toLowerCase(), num(total), num(total)],
    );
    return rows.length === 1;
  }

  async claimed(channelId: string, total: bigint, now: Date): Promise<void> {
    await this.sql.all(
      `update channels set claimed = ${this.raised('claimed')}, claiming = null, claiming_since = null, updated_at = ? where channel_id = ? returning channel_id`,
      [num(total), num(total), now.getTime(), channelId.toLowerCase()],
    );
  }

  async claimAbandoned(channelId: string, now: Date): Promise<void> {
    await this.sql.all(`update channels set claiming = null, claiming_since = null, updated_at = ? where channel_id = ? returning channel_id`, [
      now.getTime(),
      channelId.toLowerCase(),
    ]);
  }

  async refunded(channelId: string, after: { balance: bigint; claimed: bigint; refundNonce: bigint }, now: Date): Promise<void> {
    await this.sql.all(
      `update channels set balance = ?, claimed = ${this.raised('claimed')}, refund_nonce = ?, updated_at = ? where channel_id = ? returning channel_id`,
      [num(after.balance), num(after.claimed), num(after.claimed), num(after.refundNonce), now.getTime(), channelId.toLowerCase()],
    );
  }

  /** `column` raised to the value of the two parameters that follow (bound with the same amount), never lowered. */
  private raised(column: string): string {
    return `case when ${this.sql.exact(column)} < ${this.sql.exact('?')} then ? else ${column} end`;
  }

  private async where(clause: string, params: unknown[]): Promise<Channel[]> {
    return (await this.sql.all(`select ${CHANNELS.select(this.sql)} from channels where ${clause}`, params)).map(CHANNELS.fromRow);
  }
}
