import type { Payment } from '../../domain/payment.js';
import type { Position } from '../../domain/position.js';
import type { Token } from '../../domain/token.js';
import type { Trade, TradeSide, VenueName } from '../../domain/trade.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../deps.js';
import { tradeView } from '../views.js';

/**
 * The writes every trade makes, inside its unit of work: the token as the trade left it (its
 * curve moved, or as it was after a trade on the pool), the position, the trade row and the event
 * describing it.
 */
export async function recordTrade(
  deps: Pick<AppDeps, 'ids'>,
  stores: Stores,
  args: {
    token: Token;
    position: Position;
    side: TradeSide;
    usdAmount: bigint;
    feeUsd: bigint;
    tokenAmount: bigint;
    payment: Payment | undefined;
    now: Date;
    venue: VenueName;
  },
): Promise<{ token: Token; trade: Trade }> {
  const { token, now } = args;
  const trade: Trade = {
    tradeId: deps.ids.next('trd'),
    network: token.network,
    tokenId: token.tokenId,
    wallet: args.position.wallet,
    side: args.side,
    usdAmount: args.usdAmount,
    feeUsd: args.feeUsd,
    tokenAmount: args.tokenAmount,
    paymentId: args.payment?.paymentId ?? null,
    settlementTx: args.payment?.settlementTx ?? null,
    venue: args.venue,
    createdAt: now,
  };
  await stores.tokens.update(token);
  await stores.positions.save(args.position);
  await stores.trades.record(trade);
  await stores.events.append({
    type: 'trade.executed',
    network: token.network,
    tokenId: token.tokenId,
    data: { trade: tradeView(trade) },
    createdAt: now,
  });
  return { token, trade };
}
