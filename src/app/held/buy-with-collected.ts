/**
 * A buy paid by USDC custody has collected (collect.ts) instead of an x402 payment — an order's
 * limit buy (a raise refunds pledges with `refundCollected`, and books its buy on the curve
 * itself). It goes to the token's venue like any buy (its curve, its pool once graduated:
 * trading/venues), at the fee in force and with the same fee shares (record-trade.ts); the trade
 * row has no payment. `onBooked` runs inside the transaction that
 * books the trade, so the caller's own state (an order's EXECUTED) commits with it, or neither.
 *
 *   planCollectedBuy  → the plan, checked on the venue now (SLIPPAGE_EXCEEDED when minTokensOut is
 *                       missed): call it before collecting, so a missed bound collects nothing
 *   buyWithCollected  → the buy executed and booked (the plan checked again)
 *   refundCollected   → in the caller's transaction: the collected amount queued back to the wallet
 */
import { isRefusal, ServiceUnavailable } from '../../domain/errors.js';
import { newPayout, type Payout } from '../../domain/payout.js';
import type { NotSent } from '../../ports/custody-transaction-store.js';
import type { PoolSwap } from '../../ports/pool-swap-store.js';
import type { Network, PaymentAsset } from '../../domain/network.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import { refuseSwap } from '../custody/index.js';
import { type BuyPlan, type BuyResult, type TradePhase, buyPlanOfSwap, tradedToken, venueFor, type VenueDeps, venueNamed } from '../trading/index.js';

export interface CollectedBuy {
  /** The collect's key (e.g. `order:<id>`): it also keys the pool swap, so a retry swaps once. */
  key: string;
  tokenId: string;
  network: Network;
  /** Who the tokens are booked to and delivered to. */
  buyer: string;
  /** Gross USD (USDC units) collected, our fee included — what the buy spends. */
  usdAmount: bigint;
  /** The least tokens to accept; none: any (the curve), or the pool's default slippage. */
  minTokensOut?: bigint | undefined;
  referrer?: string | null | undefined;
  /** Runs in the booking's transaction; throwing rolls the trade back (e.g. a lost compare-and-set). */
  onBooked?: (stores: Stores, result: BuyResult) => Promise<void>;
}

/**
 * The buy's plan on the token's venue now, or its refusal (TOKEN_GRADUATED, SLIPPAGE_EXCEEDED…).
 * No bounds on the buy's size: an order's size was checked when it was placed.
 */
export async function planCollectedBuy(
  deps: VenueDeps,
  b: Pick<CollectedBuy, 'tokenId' | 'network' | 'usdAmount' | 'minTokensOut'>,
  phase: TradePhase = 'price',
): Promise<BuyPlan> {
  const token = await deps.uow.run((s) => tradedToken(s, b.tokenId, 'buy', b.network));
  return venueFor(deps, token, 'buy').planBuy(token, { grossUsd: b.usdAmount, minTokensOut: b.minTokensOut, quoteId: null }, phase);
}

/**
 * Plans and executes the buy; resolves with the booked result (as token_buy_usd answers, `payment` null).
 * A retry whose pool swap is recorded already (a crash between the mined swap and the booking,
 * another process resuming the same order) is not priced again — the pool now holds its own
 * swap, and a refusal would refund USDC whose tokens are in custody: it books the recorded swap
 * at the terms recorded with it (decision 0061), as a settled payment's apply does.
 */
export async function buyWithCollected(deps: VenueDeps, b: CollectedBuy): Promise<BuyResult> {
  const plan = await collectedPlan(deps, b);
  return venueNamed(deps, plan.venue ?? 'curve').buy(
    { plan, buyer: b.buyer, network: b.network, referrer: b.referrer },
    { key: b.key, ...(b.onBooked ? { onApplied: b.onBooked } : {}) },
  );
}

/**
 * The plan of a collected buy: its recorded swap's terms; the venue's check now when nothing is
 * recorded. A refusal of that check stands only once it is recorded for the key in the swap's
 * place (decision 0059): a copy of the buy in another process may have recorded and sent its swap
 * since this one looked — then that swap is the plan, and the refusal never refunds its USDC.
 */
async function collectedPlan(deps: VenueDeps, b: CollectedBuy): Promise<BuyPlan> {
  const recorded = await deps.uow.run((s) => s.swaps.get(b.key));
  const swapped = (stands: PoolSwap | NotSent) =>
    buyPlanOfSwap(stands, b.network) ?? planCollectedBuy(deps, { ...b, minTokensOut: b.minTokensOut ?? 0n }, 'apply'); // a refusal, or a swap recorded without its terms
  if (recorded) return swapped(recorded);
  try {
    return await planCollectedBuy(deps, b);
  } catch (e) {
    if (!isRefusal(e) || e instanceof ServiceUnavailable) throw e;
    const stands = await refuseSwap(deps, b.key, b.network, b.tokenId, e);
    if (stands instanceof Error) throw stands; // this refusal, or another copy's recorded first
    return swapped(stands);
  }
}

/**
 * Collected money that buys nothing (the buy was refused after the collect, a raise failed):
 * queued back to `wallet` in full, in the asset collected, once per `sourceId`.
 */
export function refundCollected(
  deps: Pick<AppDeps, 'ids' | 'clock'>,
  stores: Stores,
  r: { network: Network; wallet: string; asset: PaymentAsset; amount: bigint; sourceId: string },
): Promise<Payout> {
  return stores.payouts.enqueue(
    newPayout({ payoutId: deps.ids.next('pout'), network: r.network, wallet: r.wallet, asset: r.asset, amount: r.amount, reason: 'refund', sourceId: r.sourceId, now: deps.clock.now() }),
  );
}
