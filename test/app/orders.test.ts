/** Orders with fakes (docs/api.md "Orders"): placing and its refusals, execution on crossings, priority, failures, cancel, expiry, crash resume. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import type { OrderKind } from '../../src/domain/order.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { collectHeld } from '../../src/app/held/collect.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { executeCrossed, expireOrders, orderKey, RESUME_MARGIN_MS, resumeExecuting } from '../../src/app/orders/execute-orders.js';
import { cancelMessage, cancelOrder, getOrderBook, listOrders } from '../../src/app/orders/order-reads.js';
import { checkPlaceOrder, placeOrder, type PlaceOrderInput } from '../../src/app/orders/place-order.js';
import { moveOrder } from '../../src/app/orders/move-order.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { sellToken } from '../../src/app/trading/sell-token.js';
import { OrderExecutor } from '../../src/app/workers/order-executor.js';
import { quoteSell } from '../../src/domain/curve.js';
import { pricingParams } from '../../src/domain/token.js';
import { compareTrigger } from '../../src/domain/order.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { accountOf, settleTokens, signSell } from '../support/onchain.js';
import { waitFor } from '../support/wait.js';

type Deps = ReturnType<typeof makeDeps>;
const USDC = stablecoin(TESTNET, 'USDC');
const WALLET_C = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const DAY = 86_400_000;

async function setup() {
  const deps = makeDeps();
  deps.tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
  deps.tokenIssuer.mint(TESTNET, USDC.address, WALLET_A, 100_000_000n);
  const { tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Order coin', symbol: 'ORD' }), creator: WALLET_C, network: TESTNET });
  await settleTokens(deps);
  await buy(deps, tokenId, WALLET_B, 50_000_000n); // B holds tokens to sell the price down with
  await buy(deps, tokenId, WALLET_A, 10_000_000n); // A holds tokens for its sell orders
  await settleTokens(deps);
  return { deps, tokenId };
}

async function buy(deps: Deps, tokenId: string, wallet: string, usd: bigint) {
  const plan = await planBuy(deps, { kind: 'usd', tokenId, usdAmount: usd }, TESTNET);
  return buyToken(deps, { plan, buyer: wallet, network: TESTNET });
}

async function tokenOf(deps: Deps, tokenId: string) {
  return (await deps.uow.run((s) => s.tokens.get(tokenId)))!;
}

/** The spot price × 1e18 (USD per token), scaled by `bps` basis points (10000: the price now). */
async function priceAt(deps: Deps, tokenId: string, bps: bigint) {
  const t = await tokenOf(deps, tokenId);
  return (t.curve.virtualUsd * 10n ** 30n * bps) / (t.curve.virtualTokens * 10_000n);
}

async function sellOf(deps: Deps, tokenId: string, wallet: string, tokens: bigint, validBefore?: bigint) {
  const t = await tokenOf(deps, tokenId);
  return signSell({
    wallet,
    token: { network: TESTNET, address: t.address!, name: t.name },
    custody: deps.tokenIssuer.custody(TESTNET),
    tokens,
    now: deps.clock.now(),
    ...(validBefore ? { over: { validBefore } } : {}),
  });
}

/** B sells `pct` percent of what it holds: the price falls. */
async function sellDown(deps: Deps, tokenId: string, pct: bigint) {
  const held = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_B, tokenId)))!.balance;
  const tokens = (held * pct) / 100n;
  const authorization = await sellOf(deps, tokenId, WALLET_B, tokens);
  await sellToken(deps, { tokenId, tokens, authorization, seller: WALLET_B, network: TESTNET });
}

const inSeconds = (deps: Deps, ms: number) => BigInt(Math.ceil((deps.clock.now().getTime() + ms) / 1000));

async function orderInput(
  deps: Deps,
  tokenId: string,
  o: { kind: OrderKind; trigger: bigint; usd?: bigint; tokens?: bigint; wallet?: string; minTokensOut?: bigint; expiresInMs?: number; validForMs?: number },
): Promise<PlaceOrderInput> {
  const wallet = o.wallet ?? WALLET_A;
  const expiresAt = new Date(deps.clock.now().getTime() + (o.expiresInMs ?? DAY));
  const validBefore = inSeconds(deps, o.validForMs ?? o.expiresInMs ?? DAY);
  const authorization =
    o.kind === 'limit_buy'
      ? await signSell({ wallet, token: { network: TESTNET, ...USDC }, custody: deps.tokenIssuer.custody(TESTNET), tokens: o.usd!, now: deps.clock.now(), over: { validBefore } })
      : await sellOf(deps, tokenId, wallet, o.tokens!, validBefore);
  return { tokenId, kind: o.kind, triggerPrice: o.trigger, usdAmount: o.usd, tokens: o.tokens, minTokensOut: o.minTokensOut, expiresAt, authorization };
}

async function place(deps: Deps, input: PlaceOrderInput, wallet = WALLET_A) {
  const caller = { wallet, network: TESTNET } as const;
  await checkPlaceOrder(deps, input, caller);
  return placeOrder(deps, input, caller);
}

const stateOf = async (deps: Deps, orderId: string) => (await deps.uow.run((s) => s.orders.get(orderId)))!;

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}${e.details?.['reason'] ? `:${String(e.details['reason'])}` : ''}`;
    throw e;
  }
  return 'OK';
}

/** Past the chain wait and its margin: an EXECUTING order untouched since is no longer in anyone's hands. */
const settle = (deps: Deps) => deps.clock.advance(deps.settings.pullWaitMs + RESUME_MARGIN_MS + 1);

const usdcOf = (deps: Deps, wallet: string) => deps.tokenIssuer.balanceOf(TESTNET, USDC.address, wallet);

describe('placing an order', () => {
  it('refuses, before any payment, a trigger of 0, a far expiry, an authorization short of the expiry, another wallet, another amount, a sell of more than held', async () => {
    const { deps, tokenId } = await setup();
    const trigger = await priceAt(deps, tokenId, 9_000n);
    const check = async (input: PlaceOrderInput, wallet = WALLET_A) => refusal(checkPlaceOrder(deps, input, { wallet, network: TESTNET }));
    expect(await check({ ...(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 5_000_000n })), triggerPrice: 0n })).toBe('VALIDATION_ERROR');
    expect(await check(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 5_000_000n, expiresInMs: 31 * DAY }))).toBe('VALIDATION_ERROR');
    expect(await check(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 5_000_000n, validForMs: DAY / 2 }))).toBe('HELD_AUTHORIZATION_INVALID:valid_before');
    expect(await check(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 5_000_000n }), WALLET_B)).toBe('HELD_AUTHORIZATION_INVALID:wallet');
    const other = await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 5_000_000n });
    expect(await check({ ...other, usdAmount: 6_000_000n })).toBe('HELD_AUTHORIZATION_INVALID:value');
    const held = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance;
    expect(await check(await orderInput(deps, tokenId, { kind: 'stop_loss', trigger, tokens: held + 1n }))).toBe('INSUFFICIENT_BALANCE');
    expect(await check(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 500_000_000n }))).toBe('INSUFFICIENT_BALANCE');
    expect(deps.uow.db.orders.size).toBe(0);
  });
});

describe('a stop-loss without a floor of its own', () => {
  it('is refused before any payment when its own sale moves the price past its band (it could never execute), asking for minUsdOut; placed with one, or smaller, it is taken', async () => {
    const { deps, tokenId } = await setup();
    await buy(deps, tokenId, WALLET_A, 2_000_000_000n); // $2,000 more: a third of the curve's depth
    await settleTokens(deps);
    const held = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance;
    const trigger = await priceAt(deps, tokenId, 8_000n);
    const check = async (input: PlaceOrderInput) => {
      try {
        await checkPlaceOrder(deps, input, { wallet: WALLET_A, network: TESTNET });
        return 'OK';
      } catch (e) {
        return e instanceof DomainError ? `${e.code}:${JSON.stringify(e.details)}` : String(e);
      }
    };
    const whole = await orderInput(deps, tokenId, { kind: 'stop_loss', trigger, tokens: held });
    expect(await check(whole)).toMatch(/^VALIDATION_ERROR:.*"path":"minUsdOut".*moves the price more than 5 %/);
    expect(await check({ ...whole, minUsdOut: 1_000_000n })).toBe('OK');
    expect(await check(await orderInput(deps, tokenId, { kind: 'stop_loss', trigger, tokens: held / 100n }))).toBe('OK');
    expect(deps.uow.db.orders.size).toBe(0);
  });
});

describe('one authorization, one order', () => {
  it('refuses, before any payment, an authorization another OPEN order holds (used); once that order is gone, it may be placed again', async () => {
    const { deps, tokenId } = await setup();
    const buyInput = await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 9_000n), usd: 5_000_000n });
    const first = await place(deps, buyInput);
    expect(await refusal(checkPlaceOrder(deps, { ...buyInput, triggerPrice: buyInput.triggerPrice - 1n }, { wallet: WALLET_A, network: TESTNET }))).toBe('HELD_AUTHORIZATION_INVALID:used');
    const tokens = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance / 4n;
    const sellInput = await orderInput(deps, tokenId, { kind: 'stop_loss', trigger: await priceAt(deps, tokenId, 9_000n), tokens });
    await place(deps, sellInput);
    expect(await refusal(checkPlaceOrder(deps, { ...sellInput, kind: 'take_profit', triggerPrice: await priceAt(deps, tokenId, 12_000n) }, { wallet: WALLET_A, network: TESTNET }))).toBe('HELD_AUTHORIZATION_INVALID:used');
    expect(deps.uow.db.orders.size).toBe(2);
    await deps.uow.transaction((s) => moveOrder(s, deps.uow.db.orders.get(first.orderId)!, 'OPEN', 'CANCELLED', deps.clock.now()));
    expect(await refusal(checkPlaceOrder(deps, buyInput, { wallet: WALLET_A, network: TESTNET }))).toBe('OK');
  });
});

describe('executing orders', () => {
  it('a limit buy below the price waits, then executes when sells bring the price down: USDC drops by exactly its amount, the position is booked', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 9_990n), usd: 5_000_000n }));
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect((await stateOf(deps, order.orderId)).state).toBe('OPEN');
    const before = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance;
    await sellDown(deps, tokenId, 50n);
    expect(await executeCrossed(deps, tokenId)).toBe(1);
    const done = await stateOf(deps, order.orderId);
    expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(await usdcOf(deps, WALLET_A)).toBe(95_000_000n);
    const trade = deps.uow.db.trades.find((t) => t.tradeId === done.tradeId)!;
    expect(trade).toMatchObject({ side: 'buy', usdAmount: 5_000_000n, wallet: WALLET_A, paymentId: null });
    expect(trade.feeUsd).toBeGreaterThan(0n);
    expect((await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance).toBe(before + trade.tokenAmount);
    expect(deps.uow.db.events.map((e) => e.type)).toEqual(expect.arrayContaining(['order.placed', 'order.executed']));
    expect(await executeCrossed(deps, tokenId)).toBe(0); // never twice
  });

  it('a bound that would be missed leaves the order OPEN and collects nothing', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n, minTokensOut: 10n ** 30n }));
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect((await stateOf(deps, order.orderId)).state).toBe('OPEN');
    expect(await usdcOf(deps, WALLET_A)).toBe(100_000_000n);
  });

  it('a buy whose wallet emptied itself fails with its reason and books nothing', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    deps.tokenIssuer.holderTransfer(TESTNET, USDC.address, WALLET_A, WALLET_B, 99_000_000n);
    const trades = deps.uow.db.trades.length;
    await executeCrossed(deps, tokenId);
    expect(await stateOf(deps, order.orderId)).toMatchObject({ state: 'FAILED', reason: 'unusable:balance', tradeId: null });
    expect(deps.uow.db.trades).toHaveLength(trades);
    expect(deps.uow.db.events.at(-1)?.type).toBe('order.failed');
  });

  it('a stop-loss sells when the price falls to it, a take-profit when it rises to it; each pays out exactly the sell proceeds', async () => {
    const { deps, tokenId } = await setup();
    const tokens = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance / 4n;
    const stop = await place(deps, await orderInput(deps, tokenId, { kind: 'stop_loss', trigger: await priceAt(deps, tokenId, 9_990n), tokens }));
    const take = await place(deps, await orderInput(deps, tokenId, { kind: 'take_profit', trigger: await priceAt(deps, tokenId, 10_010n), tokens }));
    await sellDown(deps, tokenId, 50n);
    await executeCrossed(deps, tokenId);
    expect(await stateOf(deps, stop.orderId)).toMatchObject({ state: 'EXECUTED', reason: null });
    expect((await stateOf(deps, take.orderId)).state).toBe('OPEN');
    await buy(deps, tokenId, WALLET_B, 40_000_000n);
    await executeCrossed(deps, tokenId);
    const taken = await stateOf(deps, take.orderId);
    expect(taken).toMatchObject({ state: 'EXECUTED', reason: null });
    for (const o of [await stateOf(deps, stop.orderId), taken]) {
      const trade = deps.uow.db.trades.find((t) => t.tradeId === o.tradeId)!;
      const payout = [...deps.uow.db.payouts.values()].find((p) => p.sourceId === trade.tradeId)!;
      expect(payout).toMatchObject({ wallet: WALLET_A, reason: 'sell', amount: trade.usdAmount - trade.feeUsd });
    }
  });

  it('executes crossed orders in price-then-time priority', async () => {
    const { deps, tokenId } = await setup();
    deps.tokenIssuer.mint(TESTNET, USDC.address, WALLET_B, 100_000_000n);
    const low = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_200n), usd: 2_000_000n }));
    deps.clock.advance(1000);
    const high = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 11_000n), usd: 2_000_000n, wallet: WALLET_B }), WALLET_B);
    deps.clock.advance(1000);
    const laterHigh = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 11_000n), usd: 2_000_000n }));
    await executeCrossed(deps, tokenId);
    const tradeIndex = async (id: string) => deps.uow.db.trades.findIndex((t) => t.tradeId === (deps.uow.db.orders.get(id)!.tradeId));
    expect([await tradeIndex(high.orderId), await tradeIndex(laterHigh.orderId), await tradeIndex(low.orderId)].every((i) => i >= 0)).toBe(true);
    expect(await tradeIndex(high.orderId)).toBeLessThan(await tradeIndex(laterHigh.orderId));
    expect(await tradeIndex(laterHigh.orderId)).toBeLessThan(await tradeIndex(low.orderId));
  });

  it('two executors racing over one token execute each order once', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    await Promise.all([executeCrossed(deps, tokenId), executeCrossed(deps, tokenId)]);
    expect(deps.uow.db.trades.filter((t) => t.tradeId === deps.uow.db.orders.get(order.orderId)!.tradeId)).toHaveLength(1);
    expect(await usdcOf(deps, WALLET_A)).toBe(95_000_000n);
  });

  it('a process that died right after the collect: the order is carried on once, the USDC collected once', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    const stored = await stateOf(deps, order.orderId);
    await deps.uow.transaction((s) => moveOrder(s, stored, 'OPEN', 'EXECUTING', deps.clock.now()));
    await collectHeld(deps, orderKey(stored), TESTNET, USDC.address, stored.authorization, tokenId); // then the crash
    const broadcasts = deps.tokenIssuer.broadcasts;
    expect(await resumeExecuting(deps)).toBe(0); // too young: it may be another process's, still waiting on the chain
    settle(deps);
    expect(await resumeExecuting(deps)).toBe(1);
    expect((await stateOf(deps, order.orderId)).state).toBe('EXECUTED');
    expect(await resumeExecuting(deps)).toBe(0);
    expect(await usdcOf(deps, WALLET_A)).toBe(95_000_000n);
    expect(deps.tokenIssuer.broadcasts - broadcasts).toBeLessThanOrEqual(1); // the recorded collect, broadcast again at most
  });
});

describe('a limit buy never pays more than its trigger', () => {
  it('resumed after the price rose past its trigger, it is refused and its collected USDC refunded in full', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 9_990n), usd: 5_000_000n }));
    await sellDown(deps, tokenId, 50n); // crossed
    const stored = await stateOf(deps, order.orderId);
    await deps.uow.transaction((s) => moveOrder(s, stored, 'OPEN', 'EXECUTING', deps.clock.now()));
    await collectHeld(deps, orderKey(stored), TESTNET, USDC.address, stored.authorization, tokenId); // then the crash
    await buy(deps, tokenId, WALLET_B, 60_000_000n); // meanwhile the price rises past the trigger
    expect(await priceAt(deps, tokenId, 10_000n)).toBeGreaterThan(stored.triggerPrice);
    const trades = deps.uow.db.trades.length;
    settle(deps);
    expect(await resumeExecuting(deps)).toBe(1);
    expect(await stateOf(deps, order.orderId)).toMatchObject({ state: 'FAILED', reason: 'refunded:SLIPPAGE_EXCEEDED', tradeId: null });
    expect(deps.uow.db.trades).toHaveLength(trades);
    expect([...deps.uow.db.payouts.values()].filter((p) => p.sourceId === orderKey(stored))).toEqual([expect.objectContaining({ wallet: WALLET_A, reason: 'refund', amount: 5_000_000n })]);
  });
});

describe('a chain that stalls', () => {
  it('a collect not mined yet leaves the order EXECUTING; once mined, the next pass executes it once', async () => {
    const { deps, tokenId } = await setup();
    deps.settings.pullWaitMs = 30;
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    deps.tokenIssuer.scriptNext('hold');
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect((await stateOf(deps, order.orderId)).state).toBe('EXECUTING');
    settle(deps);
    expect(await resumeExecuting(deps)).toBe(0); // still not mined: it waits
    await deps.tokenIssuer.unblock(TESTNET, '0x');
    expect(await resumeExecuting(deps)).toBe(1);
    expect((await stateOf(deps, order.orderId)).state).toBe('EXECUTED');
    expect(await usdcOf(deps, WALLET_A)).toBe(95_000_000n);
  });
});

describe('one order, one execution', () => {
  /** A stop-loss of a quarter of A's tokens, crossed now, whose minUsdOut is exactly what it pays now: a second sell after it would slip. */
  async function tightStop(deps: Deps, tokenId: string) {
    const tokens = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance / 4n;
    const t = await tokenOf(deps, tokenId);
    const minUsdOut = quoteSell(pricingParams(t, deps.clock.now()), t.curve, tokens).usdOut;
    const order = await place(deps, { ...(await orderInput(deps, tokenId, { kind: 'stop_loss', trigger: await priceAt(deps, tokenId, 10_100n), tokens })), minUsdOut });
    return { order, tokens };
  }

  /** Until the held pull is broadcast and every copy waiting on it has had its turn. */
  async function pullHeld(deps: Deps, broadcasts: number) {
    await waitFor('the held pull broadcast', () => deps.tokenIssuer.broadcasts !== broadcasts, { stepMs: 1 });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  }

  const returns = (deps: Deps, orderId: string) => [...deps.uow.db.deliveries.values()].filter((d) => d.sourceId === `return:order:${orderId}`);
  /** The order sold once (one trade) and sent no tokens back. */
  async function expectSoldOnceNothingReturned(deps: Deps, orderId: string) {
    const done = await stateOf(deps, orderId);
    expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(deps.uow.db.trades.filter((t) => t.tradeId === done.tradeId)).toHaveLength(1);
    expect(returns(deps, orderId)).toHaveLength(0);
  }

  it('a worker pass while a woken drain waits on the pull does not carry the same sell on beside it: it sells once and returns nothing', async () => {
    const { deps, tokenId } = await setup();
    deps.settings.pullWaitMs = 2_000;
    const { order } = await tightStop(deps, tokenId);
    const executor = new OrderExecutor(deps);
    const broadcasts = deps.tokenIssuer.broadcasts;
    deps.tokenIssuer.scriptNext('hold');
    executor.wake(tokenId);
    await pullHeld(deps, broadcasts);
    settle(deps); // even an order old enough to resume is not taken up while this process carries it
    const pass = executor.runOnce();
    await pullHeld(deps, broadcasts);
    await deps.tokenIssuer.unblock(TESTNET, '0x');
    await pass;
    await expectSoldOnceNothingReturned(deps, order.orderId);
  });

  it('two processes carrying on one EXECUTING sell: the copy refused after the other sold sends back nothing', async () => {
    const { deps, tokenId } = await setup();
    deps.settings.pullWaitMs = 2_000;
    const { order } = await tightStop(deps, tokenId);
    const stored = await stateOf(deps, order.orderId);
    await deps.uow.transaction((s) => moveOrder(s, stored, 'OPEN', 'EXECUTING', deps.clock.now())); // then the crash
    settle(deps);
    const broadcasts = deps.tokenIssuer.broadcasts;
    deps.tokenIssuer.scriptNext('hold');
    const other = { ...deps }; // another process: its own in-flight orders, the same database and chain
    const both = Promise.all([resumeExecuting(deps), resumeExecuting(other)]);
    await pullHeld(deps, broadcasts);
    await deps.tokenIssuer.unblock(TESTNET, '0x');
    await both;
    await expectSoldOnceNothingReturned(deps, order.orderId);
  });

  it('a sell refused after its pull fails refunded:SLIPPAGE_EXCEEDED and sends the tokens back, once', async () => {
    const { deps, tokenId } = await setup();
    const { order, tokens } = await tightStop(deps, tokenId);
    const stored = await stateOf(deps, order.orderId);
    const claimed = (await deps.uow.transaction((s) => moveOrder(s, stored, 'OPEN', 'EXECUTING', deps.clock.now())))!;
    await sellDown(deps, tokenId, 10n); // the price moves past minUsdOut between the claim and the sell
    settle(deps);
    expect(await resumeExecuting(deps)).toBe(1);
    expect(await stateOf(deps, claimed.orderId)).toMatchObject({ state: 'FAILED', reason: 'refunded:SLIPPAGE_EXCEEDED', tradeId: null });
    expect(returns(deps, order.orderId)).toEqual([expect.objectContaining({ wallet: WALLET_A, amount: tokens })]);
  });
});

describe('cancelling and expiring', () => {
  it('the order wallet cancels with a signed message (another wallet may not); a cancelled order never executes', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    const byB = await accountOf(WALLET_B).signMessage({ message: cancelMessage(order.orderId) });
    expect(await refusal(cancelOrder(deps, { orderId: order.orderId, signature: byB }))).toBe('ORDER_WALLET_NOT_PROVEN');
    expect(await refusal(cancelOrder(deps, { orderId: order.orderId }))).toBe('ORDER_WALLET_NOT_PROVEN');
    const byA = await accountOf(WALLET_A).signMessage({ message: cancelMessage(order.orderId) });
    expect((await cancelOrder(deps, { orderId: order.orderId, signature: byA })).state).toBe('CANCELLED');
    expect((await cancelOrder(deps, { orderId: order.orderId, provenWallet: WALLET_A })).state).toBe('CANCELLED');
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect(await usdcOf(deps, WALLET_A)).toBe(100_000_000n);
    expect((await listOrders(deps, { wallet: WALLET_A, state: 'CANCELLED', limit: 10 })).orders).toHaveLength(1);
  });

  it('an order past its expiry is EXPIRED and never executes', async () => {
    const { deps, tokenId } = await setup();
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n, expiresInMs: 60_000 }));
    deps.clock.advance(60_000);
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect(await expireOrders(deps)).toBe(1);
    expect(await stateOf(deps, order.orderId)).toMatchObject({ state: 'EXPIRED', reason: 'expired' });
    expect(await usdcOf(deps, WALLET_A)).toBe(100_000_000n);
  });

  it('the book groups OPEN orders by kind and price level', async () => {
    const { deps, tokenId } = await setup();
    const trigger = await priceAt(deps, tokenId, 9_000n);
    await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 1_000_000n }));
    await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: 2_000_000n }));
    await place(deps, await orderInput(deps, tokenId, { kind: 'stop_loss', trigger, tokens: 10n ** 18n }));
    const book = await getOrderBook(deps, tokenId);
    expect(book.buys).toEqual([expect.objectContaining({ kind: 'limit_buy', orders: 2, usdAmount: '3' })]);
    expect(book.sells).toEqual([expect.objectContaining({ kind: 'stop_loss', orders: 1, tokens: '1' })]);
    expect(book.spotPriceUsd).not.toBeNull();
  });
});

describe('a take-profit sandwiched on the curve (issue 51 point 10)', () => {
  it('the price moved back under the trigger between its claim and its sell: never sold below its trigger — FAILED, the tokens sent back; left alone, it sells at or above it', async () => {
    for (const swapBack of [true, false]) {
      const { deps, tokenId } = await setup();
      const tokens = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!.balance / 4n;
      const trigger = await priceAt(deps, tokenId, 10_050n);
      const order = await place(deps, await orderInput(deps, tokenId, { kind: 'take_profit', trigger, tokens }));
      await buy(deps, tokenId, WALLET_B, 40_000_000n); // through the trigger
      await settleTokens(deps);
      const prepareReceive = deps.tokenIssuer.prepareReceive.bind(deps.tokenIssuer);
      deps.tokenIssuer.prepareReceive = async (...args) => {
        deps.tokenIssuer.prepareReceive = prepareReceive;
        expect((await stateOf(deps, order.orderId)).state).toBe('EXECUTING'); // what the attacker waits for
        if (swapBack) {
          const tokensBack = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_B, tokenId)))!.balance; // B sells it all back
          const authorization = await sellOf(deps, tokenId, WALLET_B, tokensBack);
          await sellToken(deps, { tokenId, tokens: tokensBack, authorization, seller: WALLET_B, network: TESTNET });
        }
        return prepareReceive(...args);
      };
      await executeCrossed(deps, tokenId);
      const done = await stateOf(deps, order.orderId);
      const trade = deps.uow.db.trades.find((t) => t.tradeId === done.tradeId);
      if (trade) expect(compareTrigger(trigger, { usd: trade.usdAmount, tokens: trade.tokenAmount })).toBeLessThanOrEqual(0);
      if (swapBack) {
        expect(done).toMatchObject({ state: 'FAILED', reason: 'refunded:SLIPPAGE_EXCEEDED', tradeId: null });
        expect([...deps.uow.db.deliveries.values()].filter((d) => d.sourceId === `return:${orderKey(done)}`)).toEqual([expect.objectContaining({ wallet: WALLET_A, amount: tokens })]);
      } else {
        expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
      }
    }
  });
});

describe('orders execute at the usual fee (issue 51 point 11)', () => {
  it('a limit buy crossed while the launch fee decays waits, and executes at the base fee once it is reached', async () => {
    const deps = makeDeps({ launchFee: { startBps: 5_000n, decayMs: 20_000n } });
    deps.tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
    deps.tokenIssuer.mint(TESTNET, USDC.address, WALLET_A, 100_000_000n);
    const { tokenId } = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Launch coin', symbol: 'LNCH' }), creator: WALLET_C, network: TESTNET });
    await settleTokens(deps);
    const order = await place(deps, await orderInput(deps, tokenId, { kind: 'limit_buy', trigger: await priceAt(deps, tokenId, 10_100n), usd: 5_000_000n }));
    deps.clock.advance(2_000); // crossed 2 s after the launch: a 45 % fee in force
    expect(await executeCrossed(deps, tokenId)).toBe(0);
    expect((await stateOf(deps, order.orderId)).state).toBe('OPEN');
    expect(await usdcOf(deps, WALLET_A)).toBe(100_000_000n);
    deps.clock.advance(18_000); // the launch fee has decayed to the base fee
    expect(await executeCrossed(deps, tokenId)).toBe(1);
    const done = await stateOf(deps, order.orderId);
    const trade = deps.uow.db.trades.find((t) => t.tradeId === done.tradeId)!;
    expect(trade).toMatchObject({ side: 'buy', usdAmount: 5_000_000n, feeUsd: 50_000n }); // 1 %, the base fee
  });
});

describe('the smallest order (issue 51 point 11)', () => {
  it('refuses, before any payment, a sell order of less than one whole token and a limit buy under the smallest buy', async () => {
    const { deps, tokenId } = await setup();
    const trigger = await priceAt(deps, tokenId, 12_000n);
    const check = async (input: PlaceOrderInput) => refusal(checkPlaceOrder(deps, input, { wallet: WALLET_A, network: TESTNET }));
    expect(await check(await orderInput(deps, tokenId, { kind: 'take_profit', trigger, tokens: 1n }))).toBe('VALIDATION_ERROR');
    expect(await check(await orderInput(deps, tokenId, { kind: 'stop_loss', trigger, tokens: 10n ** 18n - 1n }))).toBe('VALIDATION_ERROR');
    expect(await check(await orderInput(deps, tokenId, { kind: 'take_profit', trigger, tokens: 10n ** 18n }))).toBe('OK');
    expect(await check(await orderInput(deps, tokenId, { kind: 'limit_buy', trigger, usd: deps.settings.minBuyUsd - 1n }))).toBe('VALIDATION_ERROR');
    expect(deps.uow.db.orders.size).toBe(0);
  });
});
