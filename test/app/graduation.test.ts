/**
 * Graduation → DEX pool over the fakes (docs/api.md "Graduation and the Uniswap v2 pool"): the pool is seeded once with exactly the
 * ledger's figures, whatever crashes, reverts or waits on the way.
 */
import { describe, expect, it } from 'vitest';
import { FakeDexRouter } from '../../src/adapters/dex/fake/fake-dex-router.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { createQuote } from '../../src/app/trading/create-quote.js';
import { UniswapV2TradeQuoter } from '../../src/adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { getAmountOut, poolBuyWithUsd, poolSell } from '../../src/domain/pool.js';
import { DomainError, ServiceUnavailable, SlippageExceeded } from '../../src/domain/errors.js';
import { GraduationWorker } from '../../src/app/workers/graduation-worker.js';
import { quoteSell, realUsdReserve } from '../../src/domain/curve.js';
import type { Graduation } from '../../src/domain/graduation.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { makeDeps, WALLET_A } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';
import { checkSell, sellToken } from '../../src/app/trading/sell-token.js';
import { transitionPayment, type Payment } from '../../src/domain/payment.js';
import { SwapPending } from '../../src/app/custody/pool-swap.js';
import { entrypoints } from '../../src/app/catalogue.js';
import { type AnyEntrypoint } from '../../src/app/kit/catalogue/entrypoint.js';
import { refund, resumeApplication } from '../../src/app/payments/pipeline/application.js';
import { RefundBesideCustody, RefusedInCustody } from '../../src/app/kit/paid.js';
import type { PipelineDeps } from '../../src/app/payments/pipeline/deps.js';
import { settledPayment } from '../support/settled-payment.js';
import { authorizationToText } from '../../src/domain/token-authorization.js';
import { waitFor } from '../support/wait.js';

type Deps = ReturnType<typeof makeDeps>;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function graduated(deps: Deps) {
  const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Moon', symbol: 'MOON' }), creator: WALLET_A, network: TESTNET });
  const plan = await planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens: parseTokens('793100000') }, TESTNET);
  await buyToken(deps, { plan, buyer: WALLET_A, network: TESTNET });
  return token.tokenId;
}

function worker(deps: Deps, dex: FakeDexRouter, over: { uow?: UnitOfWork; maxAttempts?: number; afterRecord?: (g: Graduation) => Promise<void> } = {}) {
  return new GraduationWorker({
    uow: over.uow ?? deps.uow,
    clock: deps.clock,
    ids: deps.ids,
    logger: silent,
    dex,
    maxAttempts: over.maxAttempts ?? 5,
    backoffBaseMs: 0,
    backoffMaxMs: 0,
    confirmPollMs: 0,
    stuckAfterMs: 60_000,
    ...(over.afterRecord ? { afterRecord: over.afterRecord } : {}),
  });
}

async function rest(w: GraduationWorker, passes = 20) {
  for (let i = 0; i < passes; i++) if ((await w.runOnce()) === 0) return;
}

const tokenOf = (deps: Deps, tokenId: string) => deps.uow.run((s) => s.tokens.get(tokenId)).then((t) => t!);
const steps = (deps: Deps) => [...deps.uow.db.graduations.values()].map((g) => `${g.step}:${g.state}`);

describe('graduation seeds a Uniswap v2 pool', () => {
  it('with the unsold supply and the curve’s real USD, to the unit; LP burned; token.pool_created; once', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    expect((await tokenOf(deps, tokenId)).pool).toEqual({ dex: 'uniswap-v2', state: 'PENDING', address: null, txHash: null });
    // Before its contract exists nothing is sent.
    await rest(worker(deps, dex));
    expect(dex.broadcasts).toBe(0);
    await settleTokens(deps);
    await rest(worker(deps, dex));
    const token = await tokenOf(deps, tokenId);
    const reserves = await dex.reserves(TESTNET, token.address!);
    expect(reserves).toMatchObject({ usd: realUsdReserve(token.params, token.curve), tokens: token.params.totalSupply - token.params.curveSupply });
    expect(token.pool).toMatchObject({ dex: 'uniswap-v2', state: 'CREATED', address: reserves!.pair });
    expect(token.pool!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await dex.balanceOf(TESTNET, reserves!.pair, '0x000000000000000000000000000000000000dEaD')).toBeGreaterThan(0n);
    expect(steps(deps)).toEqual([
      'approve-token:CONFIRMED',
      'approve-usd:CONFIRMED',
      'approve-token-seeder:CONFIRMED',
      'approve-usd-seeder:CONFIRMED',
      'add-liquidity:CONFIRMED',
    ]);
    const created = deps.uow.db.events.filter((e) => e.type === 'token.pool_created');
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toMatchObject({ tokenId, pool: { address: reserves!.pair, tokenReserve: '206900000000000000000000000', usdReserve: reserves!.usd.toString() } });
    // Nothing more to do, however often the worker runs.
    const sent = dex.broadcasts;
    await rest(worker(deps, dex));
    expect(dex.broadcasts).toBe(sent);
  });

  it('keeps GRADUATION_FEE_USD out of the pool', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000'), graduationFeeUsd: parseUsd('100') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    await rest(worker(deps, dex));
    const token = await tokenOf(deps, tokenId);
    expect((await dex.reserves(TESTNET, token.address!))!.usd).toBe(realUsdReserve(token.params, token.curve) - parseUsd('100'));
  });

  it('a crash between the mined addLiquidity and the state change resumes without adding twice', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    // The process dies as it commits CONFIRMED for addLiquidity: the liquidity is on chain, the books do not know.
    let dying = false;
    const crashing: UnitOfWork = {
      run: (w) => deps.uow.run(w),
      close: () => deps.uow.close(),
      transaction: (w) => (dying ? Promise.reject(new Error('killed')) : deps.uow.transaction(w)),
    };
    const first = worker(deps, dex, {
      uow: crashing,
      afterRecord: async (g) => {
        if (g.step === 'add-liquidity') dying = true;
      },
    });
    await rest(first);
    const token = await tokenOf(deps, tokenId);
    const onChain = await dex.reserves(TESTNET, token.address!);
    expect(onChain).not.toBeNull();
    expect(token.pool!.state).toBe('PENDING');
    expect(steps(deps)).toContain('add-liquidity:SENT');
    // Restarted: the same transaction is followed to its receipt; nothing is signed again.
    await rest(worker(deps, dex));
    const after = await tokenOf(deps, tokenId);
    expect(after.pool).toMatchObject({ state: 'CREATED', address: onChain!.pair });
    expect(await dex.reserves(TESTNET, token.address!)).toEqual(onChain);
    expect([...deps.uow.db.graduations.values()].filter((g) => g.step === 'add-liquidity')).toHaveLength(1);
  });

  it('a crash after recording addLiquidity and before broadcasting it sends the same signed transaction', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    let recorded: Graduation | null = null;
    await rest(
      worker(deps, dex, {
        afterRecord: async (g) => {
          if (g.step !== 'add-liquidity') return;
          recorded = g;
          throw new Error('killed before broadcast');
        },
      }),
    );
    const token = await tokenOf(deps, tokenId);
    expect(await dex.reserves(TESTNET, token.address!)).toBeNull();
    await rest(worker(deps, dex));
    expect((await tokenOf(deps, tokenId)).pool).toMatchObject({ state: 'CREATED', txHash: recorded!.txHash });
  });

  it('the router reverting is retried as a fresh transaction; exhausted retries leave the pool FAILED with an event', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    const w = worker(deps, dex, {
      maxAttempts: 2,
      afterRecord: async (g) => {
        if (g.step === 'add-liquidity') dex.scriptNext('reverted');
      },
    });
    await rest(w);
    const token = await tokenOf(deps, tokenId);
    expect(token.pool!.state).toBe('FAILED');
    expect(await dex.reserves(TESTNET, token.address!)).toBeNull();
    const failed = deps.uow.db.events.filter((e) => e.type === 'token.pool_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({ tokenId, step: 'add-liquidity', error: 'transaction reverted' });
  });

  for (const [how, fill] of [
    ['made reserves of dust with sync', { tokens: 1n, usd: 1n }],
    ['added a little liquidity at a tenth of the curve’s price', { tokens: parseTokens('1000000'), usd: parseUsd('0.5'), lpTo: '0x00000000000000000000000000000000000b0b05' }],
  ] as const) {
    it(`an outsider who created the pair first and ${how} cannot stop it: the pool is created at the curve’s final price`, async () => {
      const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
      const dex = new FakeDexRouter({ clock: deps.clock });
      const tokenId = await graduated(deps);
      await settleTokens(deps);
      const token = await tokenOf(deps, tokenId);
      dex.fillPair(TESTNET, token.address!, fill);
      await rest(worker(deps, dex));
      const after = await tokenOf(deps, tokenId);
      expect(after.pool!.state).toBe('CREATED');
      const seed = { tokens: token.params.totalSupply - token.params.curveSupply, usd: realUsdReserve(token.params, token.curve) };
      const reserves = (await dex.reserves(TESTNET, token.address!))!;
      // The pool's price is the curve's last to a part in a million.
      const off = reserves.usd * seed.tokens - seed.usd * reserves.tokens;
      expect((off < 0n ? -off : off) * 1_000_000n).toBeLessThanOrEqual(seed.usd * reserves.tokens);
      const created = deps.uow.db.events.filter((e) => e.type === 'token.pool_created');
      expect(created[0]!.data).toMatchObject({ pool: { tokenReserve: reserves.tokens.toString(), usdReserve: reserves.usd.toString() } });
      // Trading goes on through the pool.
      const quote = await createQuote({ ...deps, poolQuoter: new UniswapV2TradeQuoter(dex) }, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n });
      expect(quote.provider).toBe('uniswap-v2');
    });
  }

  it('an outsider who fills the pair after the seed was signed and before it is mined (front-running) changes nothing', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    const token = await tokenOf(deps, tokenId);
    await rest(
      worker(deps, dex, {
        afterRecord: async (g) => {
          if (g.step === 'add-liquidity') dex.fillPair(TESTNET, token.address!, { tokens: parseTokens('10'), usd: parseUsd('1000'), lpTo: '0x00000000000000000000000000000000000b0b05' });
        },
      }),
    );
    expect((await tokenOf(deps, tokenId)).pool!.state).toBe('CREATED');
    expect([...deps.uow.db.graduations.values()].filter((g) => g.step === 'add-liquidity')).toMatchObject([{ attempts: 1, state: 'CONFIRMED' }]);
    const seed = { tokens: token.params.totalSupply - token.params.curveSupply, usd: realUsdReserve(token.params, token.curve) };
    const reserves = (await dex.reserves(TESTNET, token.address!))!;
    const off = reserves.usd * seed.tokens - seed.usd * reserves.tokens;
    expect((off < 0n ? -off : off) * 1_000_000n).toBeLessThanOrEqual(seed.usd * reserves.tokens);
  });

  it('a pool that still fails leaves the curve open for sells at the curve’s price; buys stay closed', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    await rest(
      worker(deps, dex, {
        maxAttempts: 1,
        afterRecord: async (g) => {
          if (g.step === 'add-liquidity') dex.scriptNext('reverted');
        },
      }),
    );
    const token = await tokenOf(deps, tokenId);
    expect(token.pool!.state).toBe('FAILED');
    expect(deps.uow.db.events.find((e) => e.type === 'token.pool_failed')!.data).toMatchObject({ curveOpenForSells: true });
    const app = { ...deps, poolQuoter: new UniswapV2TradeQuoter(dex), dex };
    const tokens = parseTokens('1000000');
    const quote = await createQuote(app, { tokenId, side: 'sell', tokens, slippageBps: 0n });
    expect(quote.provider).toBe('curve');
    const expected = quoteSell(token.params, token.curve, tokens);
    expect(parseUsd(quote.usdAmount)).toBe(expected.usdOut);
    const cmd = {
      tokenId,
      tokens,
      seller: WALLET_A,
      network: TESTNET as typeof TESTNET,
      authorization: await signSell({ wallet: WALLET_A, token: { network: TESTNET, address: token.address!, name: token.name }, custody: deps.tokenIssuer.custody(TESTNET), tokens, now: deps.clock.now() }),
    };
    await checkSell(app, cmd, { wallet: WALLET_A, network: TESTNET });
    const sold = await sellToken(app, cmd);
    expect(sold.trade).toMatchObject({ venue: 'curve', side: 'sell' });
    expect(parseUsd(sold.usdReceived)).toBe(expected.usdOut);
    expect((await tokenOf(deps, tokenId)).curve.tokensSold).toBe(token.curve.tokensSold - tokens);
    // A buy is refused before payment, saying why.
    const refused = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('1') }, TESTNET).catch((e: DomainError) => e);
    expect(refused).toMatchObject({ code: 'TOKEN_GRADUATED', details: { sellsOnCurve: true } });
  });

  it('a chain that is down keeps the pool waiting, then it is created', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    await settleTokens(deps);
    dex.setOffline(true);
    await rest(worker(deps, dex));
    expect((await tokenOf(deps, tokenId)).pool!.state).toBe('PENDING');
    dex.setOffline(false);
    await rest(worker(deps, dex));
    expect((await tokenOf(deps, tokenId)).pool!.state).toBe('CREATED');
  });
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  return 'OK';
}

describe('quotes of a graduated token come from its pool', () => {
  it('TOKEN_GRADUATED until the pool exists; then uniswap-v2 prices with the pair’s exact math and our fee', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const withPool = { ...deps, poolQuoter: new UniswapV2TradeQuoter(dex) };
    const tokenId = await graduated(deps);
    expect(await codeOf(createQuote(withPool, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n }))).toBe('TOKEN_GRADUATED');
    await settleTokens(deps);
    await rest(worker(deps, dex));
    const token = await tokenOf(deps, tokenId);
    const r = (await dex.reserves(TESTNET, token.address!))!;

    const buy = await createQuote(withPool, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n });
    const net = parseUsd('10') - parseUsd('0.1');
    expect(buy).toMatchObject({ provider: 'uniswap-v2', usdAmount: '10', feeUsd: '0.1' });
    expect(parseTokens(buy.tokens)).toBe(getAmountOut(net, r.usd, r.tokens));
    expect(parseTokens(buy.tokens)).toBe(poolBuyWithUsd(r, parseUsd('10'), 100n).tokensOut);

    const forTokens = await createQuote(withPool, { tokenId, side: 'buy', tokens: parseTokens('1000000'), slippageBps: 0n });
    expect(parseTokens(forTokens.tokens)).toBeGreaterThanOrEqual(parseTokens('1000000'));
    expect(poolBuyWithUsd(r, parseUsd(forTokens.usdAmount) - 1n, 100n).tokensOut).toBeLessThan(parseTokens('1000000'));

    const sell = await createQuote(withPool, { tokenId, side: 'sell', tokens: parseTokens('1000000'), slippageBps: 100n });
    expect(parseUsd(sell.usdAmount)).toBe(poolSell(r, parseTokens('1000000'), 100n).usdOut);
    expect(sell.provider).toBe('uniswap-v2');

    // The pool moved (someone traded on it directly): the next quote follows it.
    dex.trade(TESTNET, token.address!, 'buy', parseUsd('1000'));
    const moved = await createQuote(withPool, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n });
    expect(parseTokens(moved.tokens)).toBeLessThan(parseTokens(buy.tokens));
    // A chain that does not answer: 503, never a guessed price.
    dex.setOffline(true);
    expect(await codeOf(createQuote(withPool, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n }))).toBe('SERVICE_UNAVAILABLE');
  });
});

/** A graduated token whose pool is seeded, and the app that trades on it. */
async function pooledToken(settings: Parameters<typeof makeDeps>[0] = {}) {
  const deps = makeDeps({ maxBuyUsd: parseUsd('20000'), ...settings });
  const dex = new FakeDexRouter({ clock: deps.clock });
  const tokenId = await graduated(deps);
  await settleTokens(deps);
  await rest(worker(deps, dex));
  const app = { ...deps, poolQuoter: new UniswapV2TradeQuoter(dex), dex };
  const token = await tokenOf(deps, tokenId);
  return { deps, dex, app, tokenId, token };
}

describe('buys of a graduated token swap on its pool', () => {

  it('swaps the USDC less our fee with the bound as amountOutMin, books exactly what came out (venue uniswap-v2), delivers it', async () => {
    const { deps, dex, app, tokenId, token } = await pooledToken();
    const r = (await dex.reserves(TESTNET, token.address!))!;
    const plan = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10') }, TESTNET);
    const expected = getAmountOut(parseUsd('9.9'), r.usd, r.tokens);
    expect(plan).toMatchObject({ venue: 'uniswap-v2', grossUsd: parseUsd('10'), minTokensOut: (expected * 9_900n) / 10_000n });
    const result = await buyToken(app, { plan, buyer: WALLET_A, network: TESTNET });
    expect(parseTokens(result.tokensReceived)).toBe(expected);
    expect(result.trade).toMatchObject({ venue: 'uniswap-v2', usdAmount: '10', feeUsd: '0.1' });
    expect(result.delivery).toMatchObject({ wallet: WALLET_A, amount: result.tokensReceived, state: 'PENDING' });
    expect(await dex.reserves(TESTNET, token.address!)).toMatchObject({ usd: r.usd + parseUsd('9.9'), tokens: r.tokens - expected });
    // The curve is as it ended; the position continues across graduation.
    expect((await tokenOf(deps, tokenId)).curve).toEqual(token.curve);
    const position = (await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId)))!;
    expect(position.balance).toBe(parseTokens('793100000') + expected);

    // Buying a number of tokens: at least those, for the least USD the pool asks.
    const forTokens = await planBuy(app, { kind: 'tokens', tokenId, tokens: parseTokens('1000') }, TESTNET);
    const bought = await buyToken(app, { plan: forTokens, buyer: WALLET_A, network: TESTNET });
    expect(parseTokens(bought.tokensReceived)).toBeGreaterThanOrEqual(parseTokens('1000'));
  });

  it('someone trading on the pool directly after the plan: the bound cannot be met, so the swap is not sent', async () => {
    const { dex, app, tokenId, token } = await pooledToken();
    const plan = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10'), minTokensOut: parseTokens('1') }, TESTNET);
    const tight = { ...plan, minTokensOut: (await app.poolQuoter.price({ side: 'buy', params: token.params, curve: token.curve, token: { network: TESTNET, address: token.address! }, usdAmount: parseUsd('10') })).tokens };
    dex.trade(TESTNET, token.address!, 'buy', parseUsd('500'));
    const sent = dex.broadcasts;
    expect(await codeOf(buyToken(app, { plan: tight, buyer: WALLET_A, network: TESTNET }))).toBe('SLIPPAGE_EXCEEDED');
    expect(dex.broadcasts).toBe(sent);
  });

  it('the router reverting the swap (the pool moved between check and mining) refuses the buy; nothing is booked', async () => {
    const { deps, dex, app, tokenId } = await pooledToken();
    const plan = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10') }, TESTNET);
    const trades = deps.uow.db.trades.length;
    dex.scriptNext('reverted');
    expect(await codeOf(buyToken(app, { plan, buyer: WALLET_A, network: TESTNET }))).toBe('SLIPPAGE_EXCEEDED');
    expect(deps.uow.db.trades.length).toBe(trades);
  });

  it('a graduated token whose pool is not there yet is still TOKEN_GRADUATED, before payment', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const dex = new FakeDexRouter({ clock: deps.clock });
    const tokenId = await graduated(deps);
    const app = { ...deps, poolQuoter: new UniswapV2TradeQuoter(dex), dex };
    expect(await codeOf(planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10') }, TESTNET))).toBe('TOKEN_GRADUATED');
  });
});

describe('sells of a graduated token swap on its pool', () => {
  async function setup() {
    const { deps, dex, app, tokenId, token } = await pooledToken();
    const sellOf = async (tokens: bigint, minUsdOut?: bigint) => ({
      tokenId,
      tokens,
      seller: WALLET_A,
      network: TESTNET as typeof TESTNET,
      ...(minUsdOut !== undefined ? { minUsdOut } : {}),
      authorization: await signSell({ wallet: WALLET_A, token: { network: TESTNET, address: token.address!, name: token.name }, custody: deps.tokenIssuer.custody(TESTNET), tokens, now: deps.clock.now() }),
    });
    return { deps, dex, app, tokenId, token, sellOf };
  }

  it('pulls the tokens, swaps them at exactly the pool’s output, pays out the proceeds less our fee (venue uniswap-v2)', async () => {
    const { dex, app, token, sellOf } = await setup();
    const r = (await dex.reserves(TESTNET, token.address!))!;
    const tokens = parseTokens('1000000');
    const cmd = await sellOf(tokens);
    await checkSell(app, cmd, { wallet: WALLET_A, network: TESTNET });
    const result = await sellToken(app, cmd);
    const expected = poolSell(r, tokens, 100n);
    expect(parseUsd(result.usdReceived)).toBe(expected.usdOut);
    expect(result.trade).toMatchObject({ venue: 'uniswap-v2', side: 'sell' });
    expect(parseUsd(result.trade.usdAmount)).toBe(expected.grossUsd);
    expect(result.payout).toMatchObject({ amount: result.usdReceived, reason: 'sell', state: 'PENDING' });
    expect(await dex.reserves(TESTNET, token.address!)).toMatchObject({ usd: r.usd - expected.grossUsd, tokens: r.tokens + tokens });
  });

  it('a minUsdOut the pool cannot pay is refused before payment', async () => {
    const { app, sellOf } = await setup();
    const cmd = await sellOf(parseTokens('1000000'), parseUsd('1000'));
    expect(await codeOf(checkSell(app, cmd, { wallet: WALLET_A, network: TESTNET }))).toBe('SLIPPAGE_EXCEEDED');
  });

  it('the router reverting the swap after the pull: refused, and the tokens go back to the seller', async () => {
    const { deps, dex, app, sellOf } = await setup();
    const cmd = await sellOf(parseTokens('1000000'));
    dex.scriptNext('reverted');
    expect(await codeOf(sellToken(app, cmd))).toBe('SLIPPAGE_EXCEEDED');
    const back = [...deps.uow.db.deliveries.values()].filter((d) => d.sourceId.startsWith('return:'));
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ wallet: WALLET_A, amount: parseTokens('1000000') });
    expect(deps.uow.db.trades.filter((t) => t.side === 'sell')).toHaveLength(0);
  });
});

/** The sell's call price up by a unit — on this test's settings, never on the defaults other tests share. */
function raiseSellPrice(deps: Deps): void {
  const settings = deps.settings as { prices: Deps['settings']['prices'] };
  settings.prices = { ...settings.prices, sell: settings.prices.sell + 1n };
}

describe('a paid pool sell off its happy path (decision 0061)', () => {
  /** A paid token_sell of 1,000,000 tokens on the pool, settled and stored as its request leaves it. */
  async function paidPoolSell() {
    const { deps, dex, app, tokenId, token } = await pooledToken();
    const pipeline = { ...app, logger: silent, metrics: { increment() {}, observe() {}, set() {} }, receiptSigner: null } as unknown as PipelineDeps;
    const ep = entrypoints().find((e) => e.name === 'token_sell')! as AnyEntrypoint;
    const tokens = parseTokens('1000000');
    const authorization = await signSell({ wallet: WALLET_A, token: { network: TESTNET, address: token.address!, name: token.name }, custody: deps.tokenIssuer.custody(TESTNET), tokens, now: deps.clock.now() });
    const raw = { tokenId, tokens: '1000000', tokenAuthorization: authorizationToText(authorization) };
    const { payment, request } = await settledPayment(pipeline, ep, raw);
    const books = () => ({
      state: deps.uow.db.payments.get(payment.paymentId)!.state,
      returns: [...deps.uow.db.deliveries.values()].filter((d) => d.sourceId === `return:${payment.paymentId}`).map((d) => d.amount),
      refunds: [...deps.uow.db.payouts.values()].filter((p) => p.sourceId === payment.paymentId && p.reason === 'refund').length,
      sells: deps.uow.db.trades.filter((t) => t.side === 'sell').length,
    });
    return { deps, dex, pipeline, ep, payment, tokens, request, books };
  }

  it('whose swap reverts after its pull is refunded with its tokens sent back, together: the pull given back, the swap moved nothing', async () => {
    const { dex, request, books, tokens } = await paidPoolSell();
    dex.scriptNext('reverted');
    expect(await request()).toMatchObject({ kind: 'refunded', response: { status: 409, body: { error: { code: 'SLIPPAGE_EXCEEDED' } } } });
    expect(books()).toEqual({ state: 'REFUNDED', returns: [tokens], refunds: 1, sells: 0 });
  });

  it('whose swap reverted and whose refund did not commit is refunded when applied again, its price changed meanwhile: the tokens back once', async () => {
    const { deps, dex, pipeline, ep, payment, request, books, tokens } = await paidPoolSell();
    dex.scriptNext('reverted');
    // The refund's transaction meets the database gone: the payment stays SETTLED.
    const status = dex.status.bind(dex);
    dex.status = async (...args) => {
      const seen = await status(...args);
      if (seen === 'reverted') {
        dex.status = status;
        const transaction = deps.uow.transaction.bind(deps.uow);
        deps.uow.transaction = async () => {
          deps.uow.transaction = transaction;
          throw new ServiceUnavailable('The database is unavailable.');
        };
      }
      return seen;
    };
    await expect(request()).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(books()).toEqual({ state: 'SETTLED', returns: [], refunds: 0, sells: 0 });
    raiseSellPrice(deps);
    const resumed = await resumeApplication(pipeline, ep, deps.uow.db.payments.get(payment.paymentId)!);
    expect(resumed).toMatchObject({ kind: 'refunded', response: { status: 409 } });
    expect(books()).toEqual({ state: 'REFUNDED', returns: [tokens], refunds: 1, sells: 0 });
    expect((await resumeApplication(pipeline, ep, deps.uow.db.payments.get(payment.paymentId)!)).kind).not.toBe('refunded');
    expect(books()).toEqual({ state: 'REFUNDED', returns: [tokens], refunds: 1, sells: 0 });
  });

  it('whose swap is mined but not booked is booked when applied again, its price changed meanwhile: sold, never refunded nor its sold tokens sent back', async () => {
    const { deps, pipeline, ep, payment, request, books } = await paidPoolSell();
    // Right after the swap is mined, the booking's transaction meets the database gone: 202.
    const transaction = deps.uow.transaction.bind(deps.uow);
    const outcome = pipeline.dex!.swapOutcome.bind(pipeline.dex);
    pipeline.dex!.swapOutcome = async (...args) => {
      deps.uow.transaction = async () => {
        deps.uow.transaction = transaction;
        throw new ServiceUnavailable('The database is unavailable.');
      };
      pipeline.dex!.swapOutcome = outcome;
      return outcome(...args);
    };
    expect((await request()).kind).toBe('pending');
    // No refusal refunds it now, not even one that names the pulled tokens to give back: they are sold.
    const back = new RefusedInCustody(new SlippageExceeded('refused', '1', '0'), 'tokens', async () => {
      throw new Error('sold tokens given back');
    });
    await expect(refund(pipeline, deps.uow.db.payments.get(payment.paymentId)!, back)).rejects.toBeInstanceOf(RefundBesideCustody);
    expect(books()).toEqual({ state: 'SETTLED', returns: [], refunds: 0, sells: 0 });
    raiseSellPrice(deps);
    const resumed = await resumeApplication(pipeline, ep, deps.uow.db.payments.get(payment.paymentId)!);
    expect(resumed.kind).toBe('applied');
    expect(books()).toEqual({ state: 'APPLIED', returns: [], refunds: 0, sells: 1 });
  });
});

describe('two copies of one pool sell that check the pool a moment apart (decision 0059)', () => {
  it('the copy that refused records its refusal first: the other, which had passed its check, sends no swap after it', async () => {
    const { deps, dex, app, tokenId, token } = await pooledToken();
    const tokens = parseTokens('1000000');
    // A bound the pool meets exactly now, and no longer once someone sells on it directly.
    const bound = poolSell((await dex.reserves(TESTNET, token.address!))!, tokens, 100n).usdOut;
    const authorization = await signSell({ wallet: WALLET_A, token: { network: TESTNET, address: token.address!, name: token.name }, custody: deps.tokenIssuer.custody(TESTNET), tokens, now: deps.clock.now() });
    const cmd = { tokenId, tokens, minUsdOut: bound, seller: WALLET_A, network: TESTNET as typeof TESTNET, authorization };
    const paid = { key: 'pay_slow', onApplied: async () => undefined };

    // The request passed its check and is about to sign (slower than the reconciler's grace)…
    let signNow!: () => void;
    const gate = new Promise<void>((r) => (signNow = r));
    let signing = false;
    const prepare = dex.prepareSwap.bind(dex);
    dex.prepareSwap = async (...args) => {
      signing = true;
      await gate;
      return prepare(...args);
    };
    const request = sellToken(app, cmd, paid);
    await waitFor('the request at its signing', () => signing, { stepMs: 1 });
    // …when the pool moves and the reconciler's copy checks it: refused (its refund gives the tokens back).
    dex.trade(TESTNET, token.address!, 'sell', parseTokens('50000000'));
    const moved = (await dex.reserves(TESTNET, token.address!))!;
    dex.prepareSwap = prepare;
    const reconciler = await sellToken(app, cmd, paid).then(
      () => null,
      (e: { code: string; details?: unknown }) => e,
    );
    expect(reconciler?.code).toBe('SLIPPAGE_EXCEEDED');
    expect(await deps.uow.run((s) => s.swaps.get('pay_slow'))).toMatchObject({ notSent: true, refusal: { code: 'SLIPPAGE_EXCEEDED', details: reconciler?.details } });

    const sent = dex.broadcasts;
    signNow();
    // The request answers the reconciler's refusal in its words: the amount the pool would have given included (decision 0063).
    const answered = await request.then(
      () => null,
      (e: { code: string; details?: Record<string, unknown> }) => e,
    );
    expect(answered).toMatchObject({ code: 'SLIPPAGE_EXCEEDED', details: reconciler?.details });
    expect(answered?.details?.['actual']).not.toBe('');
    // Nothing was swapped: the pool is as the outsider left it, no swap was broadcast, no sell booked.
    expect(dex.broadcasts).toBe(sent);
    expect(await dex.reserves(TESTNET, token.address!)).toEqual(moved);
    expect(deps.uow.db.trades.filter((t) => t.side === 'sell')).toHaveLength(0);
  });
});

describe('a pool swap on a slow chain', () => {
  it('not mined in time: pending (the payment stays SETTLED); the retry follows the same swap and applies it once', async () => {
    const { deps, dex, app, tokenId } = await pooledToken({ pullWaitMs: 0 });
    const now = deps.clock.now();
    const verified: Payment = {
      paymentId: deps.ids.next('pay'),
      network: TESTNET,
      payer: WALLET_A,
      nonce: `0x${'2'.repeat(64)}`,
      asset: 'USDC',
      amount: parseUsd('10'),
      usdValue: parseUsd('10'),
      quoteId: null,
      quotePrice: null,
      resource: 'POST /entrypoints/token_buy_usd',
      requestHash: 'hash',
      signatureHash: 'sig',
      input: {},
      state: 'VERIFIED',
      settlementTx: null,
      validBefore: 2_000_000_000n,
      createdAt: now,
      updatedAt: now,
    };
    const payment = transitionPayment(transitionPayment(verified, 'SETTLING', now), 'SETTLED', now, { settlementTx: '0xsettled' });
    await deps.uow.run((s) => s.payments.claim(payment));
    const plan = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10') }, TESTNET);
    dex.scriptNext('hold');
    await expect(buyToken(app, { plan, buyer: WALLET_A, network: TESTNET }, { payment })).rejects.toBeInstanceOf(SwapPending);
    expect((await deps.uow.run((s) => s.payments.get(payment.paymentId)))!.state).toBe('SETTLED');
    const token = await tokenOf(deps, tokenId);
    const before = (await dex.reserves(TESTNET, token.address!))!;
    // The chain catches up; the reconciler's retry (phase apply: no re-check of the pool) follows the recorded swap.
    await dex.unblock(TESTNET);
    const again = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('10') }, TESTNET, 'apply');
    const result = await buyToken(app, { plan: again, buyer: WALLET_A, network: TESTNET }, { payment });
    expect(parseTokens(result.tokensReceived)).toBe(before.tokens - (await dex.reserves(TESTNET, token.address!))!.tokens);
    expect((await deps.uow.run((s) => s.payments.get(payment.paymentId)))!.state).toBe('APPLIED');
    expect(deps.uow.db.trades.filter((t) => t.venue === 'uniswap-v2')).toHaveLength(1);
  });
});
