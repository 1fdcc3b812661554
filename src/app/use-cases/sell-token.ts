/**
 * Selling back to the curve: the payer sells from its own position; the proceeds after the fee
 * are owed to it as a Payout, queued in the same transaction as the trade.
 */
import { averagePriceUsd, quoteSell, spotPriceUsd } from '../../domain/curve.js';
import { SlippageExceeded, ValidationError } from '../../domain/errors.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import { newPayout } from '../../domain/payout.js';
import { applySell, assertCanSell } from '../../domain/position.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { payoutView, positionView, tradeView, type PositionView, type TradeView } from '../views.js';
import { loadTradableToken } from '../trading/load-token.js';
import { recordTrade } from '../trading/record-trade.js';

export interface SellRequest {
  tokenId: string;
  tokens: bigint;
  minUsdOut?: bigint | undefined;
}

export interface SellResult {
  tokenId: string;
  tokensSold: string;
  usdReceived: string;
  feeUsd: string;
  priceUsd: string;
  spotPriceUsd: string;
  position: PositionView;
  trade: TradeView;
  payout: ReturnType<typeof payoutView>;
}

/**
 * The checks a sell must pass before a payment is asked for. With a known seller (hint or
 * verified payer) they include its network and balance.
 */
export async function checkSell(
  deps: AppDeps,
  req: SellRequest,
  seller?: { wallet: string; network: Network },
): Promise<{ network: Network }> {
  return deps.uow.read(async (stores) => {
    const token = await loadTradableToken(stores, req.tokenId, seller?.network);
    if (seller) await checkPosition(stores, token.network, seller.wallet, req);
    if (req.tokens > token.curve.tokensSold) {
      throw ValidationError.of('tokens', 'is more than all tokens of this token in circulation');
    }
    const q = quoteSell(token.params, token.curve, req.tokens);
    if (seller && req.minUsdOut !== undefined && q.usdOut < req.minUsdOut) throw slippage(req.minUsdOut, q.usdOut);
    return { network: token.network };
  });
}

async function checkPosition(stores: Stores, network: Network, wallet: string, req: SellRequest) {
  const position = await stores.positions.get(network, wallet, req.tokenId);
  assertCanSell(position, req.tokens);
  return position!;
}

function slippage(minUsdOut: bigint, usdOut: bigint): SlippageExceeded {
  return new SlippageExceeded('The sell would pay out less than minUsdOut.', formatUsd(minUsdOut), formatUsd(usdOut));
}

export interface SellCommand extends SellRequest {
  seller: string;
  network: Network;
}

export function sellToken(deps: AppDeps, cmd: SellCommand, paid?: Paid<SellResult>): Promise<SellResult> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const token = await loadTradableToken(stores, cmd.tokenId, cmd.network, true);
    const before = await checkPosition(stores, token.network, cmd.seller, cmd);
    const q = quoteSell(token.params, token.curve, cmd.tokens);
    if (cmd.minUsdOut !== undefined && q.usdOut < cmd.minUsdOut) throw slippage(cmd.minUsdOut, q.usdOut);
    const position = applySell(before, cmd.tokens, q.usdOut, now);
    const written = await recordTrade(deps, stores, {
      token,
      curve: q.after,
      position,
      side: 'sell',
      usdAmount: q.grossUsd,
      feeUsd: q.feeUsd,
      tokenAmount: cmd.tokens,
      payment: paid?.payment,
      now,
    });
    const payout = await stores.payouts.enqueue(
      newPayout({
        payoutId: deps.ids.next('pout'),
        network: token.network,
        wallet: cmd.seller,
        amount: q.usdOut,
        reason: 'sell',
        sourceId: written.trade.tradeId,
        now,
      }),
    );
    return {
      tokenId: token.tokenId,
      tokensSold: formatTokens(cmd.tokens),
      usdReceived: formatUsd(q.usdOut),
      feeUsd: formatUsd(q.feeUsd),
      priceUsd: averagePriceUsd(q.usdOut, cmd.tokens),
      spotPriceUsd: spotPriceUsd(written.token.curve),
      position: positionView(position, written.token),
      trade: tradeView(written.trade),
      payout: payoutView(payout),
    };
  });
}
