import { refundable, type Channel } from '../../domain/channel.js';
import { NotFound } from '../../domain/errors.js';
import type { AppDeps } from '../kit/deps.js';

/** A batch-settlement channel as its payer reads it (docs/payments.md "Pay once, call many"). */
export function getChannel(deps: Pick<AppDeps, 'uow'>, channelId: string) {
  return deps.uow.run(async (stores) => {
    const channel = await stores.channels.get(channelId);
    if (!channel) throw new NotFound(`Channel ${channelId} does not exist.`, { resource: 'channel', channelId });
    return channelView(channel);
  });
}

export function channelView(c: Channel) {
  return {
    channelId: c.channelId,
    network: c.network,
    asset: c.asset,
    payer: c.config.payer,
    receiver: c.config.receiver,
    balance: c.balance.toString(),
    charged: c.charged.toString(),
    claimed: c.claimed.toString(),
    claiming: c.claiming === null ? null : c.claiming.toString(),
    refundable: refundable(c).toString(),
    signedMaxClaimable: c.signedMax.toString(),
    refundNonce: c.refundNonce.toString(),
    withdrawDelay: c.config.withdrawDelay,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
