import { spotPriceUsd } from '../../domain/curve.js';
import { earningsOf } from '../../domain/earnings.js';
import type { NewEvent } from '../../domain/event.js';
import { splitFee } from '../../domain/fees.js';
import { formatUsd } from '../../domain/money.js';
import type { Payment } from '../../domain/payment.js';
import type { Position } from '../../domain/position.js';
import type { Token } from '../../domain/token.js';
import type { Trade, TradeSide, VenueName } from '../../domain/trade.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import { tradeView } from '../kit/views.js';

/**
 * The writes every trade makes, inside its unit of work: the token as the trade left it (its
 * curve moved, or as it was after a trade on the pool), the position, the trade row, the event
 * describing it, and the fee's shares its creator and referrers earn.
 */
export async function recordTrade(
  deps: Pick<AppDeps, 'ids' | 'settings'>,
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
    /** The trade referrer the caller named (earns a share of the fee unless it is the trader). */
    referrer?: string | null;
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
  // The curve's price after the trade beside it, as the page's trades table shows (decision 0045).
  const after = trade.venue === 'curve' ? { spotPriceUsd: spotPriceUsd(token.curve) } : {};
  const executed: NewEvent = { type: 'trade.executed', network: token.network, tokenId: token.tokenId, data: { trade: tradeView(trade), ...after }, createdAt: now };
  const accrued = await accrueEarnings(deps, stores, token, trade, args.referrer ?? null);
  // The trade's event and its fee shares' in one insert, in that order.
  await stores.events.appendAll(accrued ? [executed, accrued] : [executed]);
  return { token, trade };
}

/**
 * The fee's shares (docs/api.md "Fees and earnings"): the creator's (split among the creator's
 * wallets as the token names them when the trade is booked, or the trader's own on a cashback
 * token), the platform referrer's, the trade referrer's, each rounded down, the treasury keeping
 * the rest — booked with the trade, so
 * a trade and its earnings commit together; paid out later by the earnings payer. Returns their
 * event (appended with the trade's), or null when no one earns a share.
 */
async function accrueEarnings(deps: Pick<AppDeps, 'ids' | 'settings'>, stores: Stores, token: Token, trade: Trade, referrer: string | null): Promise<NewEvent | null> {
  const split = splitFee(trade.feeUsd, deps.settings.feeShares, {
    payer: trade.wallet,
    creator: token.creator,
    creatorSplits: token.creatorSplits,
    feeMode: token.feeMode,
    platformReferrer: token.platformReferrer,
    tradeReferrer: referrer,
  });
  if (split.shares.length === 0) return null;
  const earnings = earningsOf(split, trade, () => deps.ids.next('earn'));
  await stores.earnings.accrue(earnings);
  return {
    type: 'earnings.accrued',
    network: token.network,
    tokenId: token.tokenId,
    data: {
      tradeId: trade.tradeId,
      feeUsd: formatUsd(trade.feeUsd),
      treasuryUsd: formatUsd(split.treasury),
      shares: earnings.map((e) => ({ role: e.role, wallet: e.wallet, amountUsd: formatUsd(e.amount) })),
    },
    createdAt: trade.createdAt,
  };
}
