/** Orders after graduation (docs/api.md "Orders"): a limit buy crossed on the token's Uniswap v2 pool executes there, once. */
import { describe, expect, it } from 'vitest';
import { FakeDexRouter } from '../../src/adapters/dex/fake/fake-dex-router.js';
import { UniswapV2TradeQuoter } from '../../src/adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { swapOnPool } from '../../src/app/custody/pool-swap.js';
import { collectHeld } from '../../src/app/held/collect.js';
import { executeCrossed, orderKey, RESUME_MARGIN_MS, resumeExecuting } from '../../src/app/orders/execute-orders.js';
import { moveOrder } from '../../src/app/orders/move-order.js';
import { feeOn } from '../../src/domain/fees.js';
import { feeBpsOf } from '../../src/domain/token.js';
import { getAmountOut } from '../../src/domain/pool.js';
import { checkPlaceOrder, placeOrder } from '../../src/app/orders/place-order.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { GraduationWorker } from '../../src/app/workers/graduation-worker.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { compareTrigger } from '../../src/domain/order.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';

const USDC = stablecoin(TESTNET, 'USDC');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A token graduated onto the fake pool, and a trigger price above the pool's. */
async function graduated() {
  const base = makeDeps({ maxBuyUsd: parseUsd('20000') });
  const dex = new FakeDexRouter({ clock: base.clock });
  const deps = { ...base, dex, poolQuoter: new UniswapV2TradeQuoter(dex) };
  deps.tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
  deps.tokenIssuer.mint(TESTNET, USDC.address, WALLET_B, 100_000_000n);
  const { tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Moon', symbol: 'MOON' }), creator: WALLET_A, network: TESTNET });
  await buyToken(deps, { plan: await planBuy(deps, { kind: 'tokens', tokenId, tokens: parseTokens('793100000') }, TESTNET), buyer: WALLET_A, network: TESTNET });
  await settleTokens(deps);
  const graduation = new GraduationWorker({ uow: deps.uow, clock: deps.clock, ids: deps.ids, logger: silent, dex, maxAttempts: 5, backoffBaseMs: 0, backoffMaxMs: 0, confirmPollMs: 0, stuckAfterMs: 60_000 });
  for (let i = 0; i < 20; i++) if ((await graduation.runOnce()) === 0) break;
  const token = (await deps.uow.run((s) => s.tokens.get(tokenId)))!;
  expect(token.pool?.state).toBe('CREATED');
  const reserves = (await dex.reserves(TESTNET, token.address!))!;
  const above = (reserves.usd * 10n ** 30n * 11n) / (reserves.tokens * 10n); // the pool's price is below it
  return { deps, dex, tokenId, token, above };
}

/** WALLET_B's USDC authorization of $5 to custody, valid two hours. */
async function signedUsdc(deps: Awaited<ReturnType<typeof graduated>>['deps']) {
  return signSell({
    wallet: WALLET_B,
    token: { network: TESTNET, ...USDC },
    custody: deps.tokenIssuer.custody(TESTNET),
    tokens: 5_000_000n,
    now: deps.clock.now(),
    over: { validBefore: BigInt(Math.floor(deps.clock.now().getTime() / 1000) + 7200) },
  });
}

/**
 * A $5 limit buy on the pool whose bound is exactly what the pool gives now (nothing after its own
 * swap), taken to EXECUTING with its USDC collected: where its execution stopped before the swap.
 */
async function collectedLimitBuy() {
  const { deps, dex, tokenId, token, above } = await graduated();
  const reserves = (await dex.reserves(TESTNET, token.address!))!;
  const net = 5_000_000n - feeOn(5_000_000n, feeBpsOf(token, deps.clock.now()));
  const minTokensOut = getAmountOut(net, reserves.usd, reserves.tokens);
  const input = { tokenId, kind: 'limit_buy' as const, triggerPrice: above, usdAmount: 5_000_000n, minTokensOut, expiresAt: new Date(deps.clock.now().getTime() + 3_600_000), authorization: await signedUsdc(deps) };
  await checkPlaceOrder(deps, input, { wallet: WALLET_B, network: TESTNET });
  const placed = await placeOrder(deps, input, { wallet: WALLET_B, network: TESTNET });
  const order = (await deps.uow.run((s) => s.orders.get(placed.orderId)))!;
  await deps.uow.transaction((s) => moveOrder(s, order, 'OPEN', 'EXECUTING', deps.clock.now()));
  await collectHeld(deps, orderKey(order), TESTNET, USDC.address, order.authorization, tokenId);
  return { deps, token, order, net, minTokensOut };
}

describe('orders on the pool', () => {
  it('a limit buy crossed on the pool swaps there with the usual fee, once', async () => {
    const { deps, tokenId, above } = await graduated();
    const authorization = await signedUsdc(deps);
    const input = { tokenId, kind: 'limit_buy' as const, triggerPrice: above, usdAmount: 5_000_000n, expiresAt: new Date(deps.clock.now().getTime() + 3_600_000), authorization };
    await checkPlaceOrder(deps, input, { wallet: WALLET_B, network: TESTNET });
    const order = await placeOrder(deps, input, { wallet: WALLET_B, network: TESTNET });
    expect(await executeCrossed(deps, tokenId)).toBe(1);
    const done = (await deps.uow.run((s) => s.orders.get(order.orderId)))!;
    expect(done.state).toBe('EXECUTED');
    const trade = deps.uow.db.trades.find((t) => t.tradeId === done.tradeId)!;
    expect(trade).toMatchObject({ venue: 'uniswap-v2', side: 'buy', usdAmount: 5_000_000n, wallet: WALLET_B });
    expect(trade.feeUsd).toBeGreaterThan(0n);
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_B)).toBe(95_000_000n);
    expect(await executeCrossed(deps, tokenId)).toBe(0);
  });

  it('a limit buy whose swap was mined before a crash is booked on resume, not refunded, even with its own swap now in the pool', async () => {
    const { deps, token, order, net, minTokensOut } = await collectedLimitBuy();
    const swap = await swapOnPool(deps, orderKey(order), token, { side: 'buy', amountIn: net, amountOutMin: minTokensOut, describe: String }); // then the crash
    deps.clock.advance(deps.settings.pullWaitMs + RESUME_MARGIN_MS + 1);
    expect(await resumeExecuting(deps)).toBe(1);
    const done = (await deps.uow.run((s) => s.orders.get(order.orderId)))!;
    expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(deps.uow.db.trades.find((t) => t.tradeId === done.tradeId)).toMatchObject({ venue: 'uniswap-v2', tokenAmount: swap.amountOut, wallet: WALLET_B });
    expect([...deps.uow.db.payouts.values()].filter((p) => p.sourceId === orderKey(order))).toHaveLength(0); // no refund
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_B)).toBe(95_000_000n);
  });

  it('a limit buy resumed in two processes: the one whose check refuses after the other recorded its swap books that swap, not a refund', async () => {
    const { deps, token, order, net, minTokensOut } = await collectedLimitBuy();
    // The other process's copy records and mines the order's swap (the pool moves) just after
    // this one looked for it and found none: this one's check then refuses on the moved pool.
    const other = await swapOnPool(deps, orderKey(order), token, { side: 'buy', amountIn: net, amountOutMin: minTokensOut, grossUsd: 5_000_000n, describe: String });
    const swaps = deps.uow.db.swaps;
    const get = swaps.get.bind(swaps);
    swaps.get = () => {
      swaps.get = get;
      return undefined;
    };
    deps.clock.advance(deps.settings.pullWaitMs + RESUME_MARGIN_MS + 1);
    expect(await resumeExecuting(deps)).toBe(1);
    expect(swaps.get).toBe(get); // this process did look, and found nothing
    const done = (await deps.uow.run((s) => s.orders.get(order.orderId)))!;
    expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(deps.uow.db.trades.find((t) => t.tradeId === done.tradeId)).toMatchObject({ venue: 'uniswap-v2', usdAmount: 5_000_000n, tokenAmount: other.amountOut });
    expect([...deps.uow.db.payouts.values()].filter((p) => p.sourceId === orderKey(order))).toHaveLength(0); // no refund
  });
});

describe('a take-profit sandwiched on the pool (issue 51 point 10)', () => {
  /**
   * WALLET_A's take-profit of a million tokens at 5 % above the pool's price, pushed through its
   * trigger by someone buying on the pool; `swapBack`: once the order is EXECUTING (its pull being
   * prepared, what an attacker polling GET /api/orders/:id sees), they sell back what they bought.
   */
  async function sandwiched(swapBack: boolean) {
    const { deps, dex, tokenId, token } = await graduated();
    const before = (await dex.reserves(TESTNET, token.address!))!;
    const trigger = (before.usd * 10n ** 30n * 105n) / (before.tokens * 100n);
    const tokens = parseTokens('1000000');
    const expiresAt = new Date(deps.clock.now().getTime() + 3_600_000);
    const authorization = await signSell({
      wallet: WALLET_A,
      token: { network: TESTNET, address: token.address!, name: token.name },
      custody: deps.tokenIssuer.custody(TESTNET),
      tokens,
      now: deps.clock.now(),
      over: { validBefore: BigInt(Math.ceil(expiresAt.getTime() / 1000)) },
    });
    const input = { tokenId, kind: 'take_profit' as const, triggerPrice: trigger, tokens, expiresAt, authorization };
    await checkPlaceOrder(deps, input, { wallet: WALLET_A, network: TESTNET });
    const placed = await placeOrder(deps, input, { wallet: WALLET_A, network: TESTNET });
    const bought = dex.trade(TESTNET, token.address!, 'buy', before.usd / 10n); // the price: ≈ 21 % up, through the trigger
    const prepareReceive = deps.tokenIssuer.prepareReceive.bind(deps.tokenIssuer);
    deps.tokenIssuer.prepareReceive = async (...args) => {
      deps.tokenIssuer.prepareReceive = prepareReceive;
      expect((await deps.uow.run((s) => s.orders.get(placed.orderId)))!.state).toBe('EXECUTING');
      if (swapBack) dex.trade(TESTNET, token.address!, 'sell', bought);
      return prepareReceive(...args);
    };
    await executeCrossed(deps, tokenId);
    const order = (await deps.uow.run((s) => s.orders.get(placed.orderId)))!;
    const trade = deps.uow.db.trades.find((t) => t.tradeId === order.tradeId);
    return { deps, order, trade, trigger, tokens };
  }

  it('the pool moved back under the trigger before its swap: it is not sold below its trigger — FAILED, its tokens sent back', async () => {
    const { deps, order, trade, trigger, tokens } = await sandwiched(true);
    expect(trade && compareTrigger(trigger, { usd: trade.usdAmount, tokens: trade.tokenAmount }) > 0).not.toBe(true); // never sold below its trigger
    expect(trade).toBeUndefined();
    expect(order).toMatchObject({ state: 'FAILED', reason: 'refunded:SLIPPAGE_EXCEEDED', tradeId: null });
    const returned = [...deps.uow.db.deliveries.values()].filter((d) => d.sourceId === `return:${orderKey(order)}`);
    expect(returned).toEqual([expect.objectContaining({ wallet: WALLET_A, amount: tokens })]);
  });

  it('the price really there: it sells, at or above its trigger per token', async () => {
    const { order, trade, trigger } = await sandwiched(false);
    expect(order).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(trade).toMatchObject({ venue: 'uniswap-v2', side: 'sell', wallet: WALLET_A });
    expect(compareTrigger(trigger, { usd: trade!.usdAmount, tokens: trade!.tokenAmount })).toBeLessThanOrEqual(0); // the average price before the fee ≥ the trigger
  });
});
