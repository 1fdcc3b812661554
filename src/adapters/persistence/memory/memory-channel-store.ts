/** Payment channels in memory: a map by channel id; every move a compare-and-set on the stored channel. */
import { claimFloor, voucherShortfall, type Channel } from '../../../domain/channel.js';
import type { Network } from '../../../domain/network.js';
import type { ChannelStore } from '../../../ports/channel-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const newestFirst = (a: Channel, b: Channel) => b.createdAt.getTime() - a.createdAt.getTime() || (a.channelId < b.channelId ? 1 : -1);
const oldestUpdated = (a: Channel, b: Channel) => a.updatedAt.getTime() - b.updatedAt.getTime() || (a.channelId < b.channelId ? -1 : 1);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export class MemoryChannelStore implements ChannelStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async get(channelId: string): Promise<Channel | null> {
    return this.db.channels.get(channelId.toLowerCase()) ?? null;
  }

  async ofPayer(payer: string, limit: number): Promise<Channel[]> {
    const lower = payer.toLowerCase();
    return this.all((c) => c.config.payer.toLowerCase() === lower)
      .sort(newestFirst)
      .slice(0, limit);
  }

  async funded(channel: Channel, now: Date): Promise<Channel> {
    const id = channel.channelId.toLowerCase();
    const stored = this.db.channels.get(id);
    if (!stored) return this.put({ ...channel, channelId: id });
    if (channel.balance <= stored.balance && channel.refundNonce <= stored.refundNonce) return stored;
    return this.put({ ...stored, balance: max(stored.balance, channel.balance), refundNonce: max(stored.refundNonce, channel.refundNonce), updatedAt: now });
  }

  async charge(channelId: string, c: { from: bigint; amount: bigint; voucherMax: bigint; signature: string }, now: Date): Promise<boolean> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (!stored || stored.charged !== c.from || voucherShortfall(stored, c.voucherMax, c.amount) !== null) return false;
    this.put({ ...stored, charged: c.from + c.amount, signedMax: c.voucherMax, signature: c.signature, updatedAt: now });
    return true;
  }

  async uncharge(channelId: string, amount: bigint, now: Date): Promise<boolean> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (!stored || stored.charged - amount < claimFloor(stored)) return false;
    this.put({ ...stored, charged: stored.charged - amount, updatedAt: now });
    return true;
  }

  async claimable(network: Network, limit: number): Promise<Channel[]> {
    return this.all((c) => c.network === network && c.claiming === null && c.charged > c.claimed)
      .sort(oldestUpdated)
      .slice(0, limit);
  }

  async claimsUnderWay(before: Date, limit: number): Promise<Channel[]> {
    return this.all((c) => c.claiming !== null && c.claimingSince !== null && c.claimingSince < before)
      .sort((a, b) => a.claimingSince!.getTime() - b.claimingSince!.getTime() || (a.channelId < b.channelId ? -1 : 1))
      .slice(0, limit);
  }

  async startClaim(channelId: string, total: bigint, now: Date): Promise<boolean> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (!stored || stored.claiming !== null || total > stored.charged || total <= stored.claimed) return false;
    this.put({ ...stored, claiming: total, claimingSince: now, updatedAt: now });
    return true;
  }

  async claimed(channelId: string, total: bigint, now: Date): Promise<void> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (stored) this.put({ ...stored, claimed: max(stored.claimed, total), claiming: null, claimingSince: null, updatedAt: now });
  }

  async claimAbandoned(channelId: string, now: Date): Promise<void> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (stored) this.put({ ...stored, claiming: null, claimingSince: null, updatedAt: now });
  }

  async refunded(channelId: string, after: { balance: bigint; claimed: bigint; refundNonce: bigint }, now: Date): Promise<void> {
    const stored = this.db.channels.get(channelId.toLowerCase());
    if (stored) this.put({ ...stored, balance: after.balance, claimed: max(stored.claimed, after.claimed), refundNonce: after.refundNonce, updatedAt: now });
  }

  private put(channel: Channel): Channel {
    this.db.set(this.tx, this.db.channels, channel.channelId, channel);
    return channel;
  }

  private all(keep: (c: Channel) => boolean): Channel[] {
    return [...this.db.channels.values()].filter(keep);
  }
}
