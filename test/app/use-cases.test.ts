import { describe, expect, it } from 'vitest';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { DomainError } from '../../src/domain/errors.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET, PRODUCTION } from '../../src/domain/network.js';
import { transitionPayment, type Payment } from '../../src/domain/payment.js';
import { buyToken, planBuy, type BuyRequest } from '../../src/app/trading/buy-token.js';
import { createQuote } from '../../src/app/trading/create-quote.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { getToken } from '../../src/app/tokens/get-token.js';
import { listPositions } from '../../src/app/trading/list-positions.js';
import { listTokens } from '../../src/app/tokens/list-tokens.js';
import { checkSell, sellToken } from '../../src/app/trading/sell-token.js';
import { getCandles as candles } from '../../src/app/tokens/get-candles.js';
import { getStats as stats } from '../../src/app/tokens/get-stats.js';
import { listHolders as holders } from '../../src/app/tokens/list-holders.js';
import { listTrades } from '../../src/app/tokens/list-trades.js';
import { tokenInfo } from '../../src/app/tokens/token-info.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';

type Deps = ReturnType<typeof makeDeps>;

async function launch(deps: Deps, symbol = 'PEPE', network: typeof TESTNET | typeof PRODUCTION = TESTNET) {
  return createToken(deps, { metadata: validateTokenMetadata({ name: `${symbol} coin`, symbol }), creator: WALLET_A, network });
}

async function buy(deps: Deps, req: BuyRequest, wallet = WALLET_A, network: typeof TESTNET | typeof PRODUCTION = TESTNET) {
  const plan = await planBuy(deps, req, network);
  return buyToken(deps, { plan, buyer: wallet, network });
}

/** A sell as a wallet sends it: the tokens delivered on chain first, then its signed authorization. */
async function sellOf(deps: Deps, tokenId: string, tokens: bigint, wallet = WALLET_A, network: typeof TESTNET | typeof PRODUCTION = TESTNET) {
  await settleTokens(deps);
  const t = (await deps.uow.run((s) => s.tokens.get(tokenId)))!;
  const authorization = await signSell({
    wallet,
    token: { network: t.network, address: t.address!, name: t.name },
    custody: deps.tokenIssuer.custody(t.network),
    tokens,
    now: deps.clock.now(),
  });
  return { tokenId, tokens, seller: wallet, network, authorization };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  return 'OK';
}

describe('createToken', () => {
  it('creates an ACTIVE token on the creator payment network with the default curve, and an event', async () => {
    const deps = makeDeps();
    const token = await launch(deps);
    expect(token).toMatchObject({
      network: TESTNET,
      name: 'PEPE coin',
      symbol: 'PEPE',
      creator: WALLET_A,
      state: 'ACTIVE',
      decimals: 18,
      totalSupply: '1000000000',
      priceUsd: '0.000005591798695246',
      marketCapUsd: '5591.798695',
      curve: { virtualUsdReserve: '6000', virtualTokenReserve: '1073000000', tokensSold: '0', progress: '0' },
      holders: 0,
      graduatedAt: null,
    });
    expect(token.tokenId).toMatch(/^tok_[0-9A-Z]{26}$/);
    expect(deps.uow.db.events.map((e) => e.type)).toEqual(['token.created']);
  });
});

describe('buyToken', () => {
  it('token_buy_usd: $5 gives the worked-example tokens and a position with the gross cost basis', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const result = await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') });
    expect(result).toMatchObject({
      tokenId,
      tokensReceived: '884495.291384607698648614',
      usdSpent: '5',
      feeUsd: '0.05',
      position: { balance: '884495.291384607698648614', costBasisUsd: '5', realizedPnlUsd: '0', symbol: 'PEPE' },
      trade: { side: 'buy', usdAmount: '5', feeUsd: '0.05', tokenAmount: '884495.291384607698648614' },
    });
    const token = await getToken(deps, tokenId);
    expect(token).toMatchObject({ volumeUsd24h: '5', trades24h: 1, holders: 1, curve: { realUsdReserve: '4.95' } });
  });

  it('token_buy_tokens: charges the rounded-up cost and holds the price for the paid retry', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const tokens = parseTokens('884495.291384607698648614');
    const first = await planBuy(deps, { kind: 'tokens', tokenId, tokens }, TESTNET);
    expect(first.grossUsd).toBe(5_000_000n);
    deps.clock.advance(30_000);
    const retry = await planBuy(deps, { kind: 'tokens', tokenId, tokens }, TESTNET);
    expect(retry).toEqual(first);
    const result = await buyToken(deps, { plan: retry, buyer: WALLET_A, network: TESTNET });
    expect(result.tokensReceived).toBe('884495.291384607698648614');
    expect(result.usdSpent).toBe('5');
  });

  it('token_buy_tokens: a held price the curve has moved past is refused before payment, and expires after 60 s', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const tokens = parseTokens('10000');
    const first = await planBuy(deps, { kind: 'tokens', tokenId, tokens }, TESTNET);
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('100') }, WALLET_B);
    expect(await codeOf(planBuy(deps, { kind: 'tokens', tokenId, tokens }, TESTNET))).toBe('SLIPPAGE_EXCEEDED');
    expect(await codeOf(buyToken(deps, { plan: first, buyer: WALLET_A, network: TESTNET }))).toBe('SLIPPAGE_EXCEEDED');
    deps.clock.advance(60_000);
    expect((await planBuy(deps, { kind: 'tokens', tokenId, tokens }, TESTNET)).grossUsd).toBeGreaterThan(first.grossUsd);
  });

  it('token_buy_tokens with maxUsd below the price is SLIPPAGE_EXCEEDED before any payment', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const req: BuyRequest = { kind: 'tokens', tokenId, tokens: parseTokens('884495.291384607698648614'), maxUsd: 4_999_999n };
    expect(await codeOf(planBuy(deps, req))).toBe('SLIPPAGE_EXCEEDED');
  });

  it('token_buy_quote: executes a stored quote with its minTokensOut; expired and unknown quotes are refused', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const quote = await createQuote(deps, { tokenId, side: 'buy', usdAmount: parseUsd('5'), slippageBps: 100n });
    expect(quote).toMatchObject({
      side: 'buy',
      usdAmount: '5',
      tokens: '884495.291384607698648614',
      minTokensOut: '875650.338470761621662127',
      provider: 'curve',
      expiresAt: '2026-11-23T12:01:00.000Z',
    });
    const result = await buy(deps, { kind: 'quote', quoteId: quote.quoteId });
    expect(result.tokensReceived).toBe('884495.291384607698648614');
    expect(await codeOf(planBuy(deps, { kind: 'quote', quoteId: 'qte_missing' }))).toBe('QUOTE_NOT_FOUND');
    deps.clock.advance(60_000);
    expect(await codeOf(planBuy(deps, { kind: 'quote', quoteId: quote.quoteId }))).toBe('QUOTE_EXPIRED');
  });

  it('refuses before payment: unknown token, below the minimum, above the maximum, over capacity, min tokens out, other network', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    expect(await codeOf(planBuy(deps, { kind: 'usd', tokenId: 'tok_nope', usdAmount: 10_000n }))).toBe('TOKEN_NOT_FOUND');
    expect(await codeOf(planBuy(deps, { kind: 'usd', tokenId, usdAmount: 9_999n }))).toBe('VALIDATION_ERROR');
    expect(await codeOf(planBuy(deps, { kind: 'usd', tokenId, usdAmount: 10_000_000_001n }))).toBe('VALIDATION_ERROR');
    expect(
      await codeOf(planBuy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5'), minTokensOut: parseTokens('884495.3') })),
    ).toBe('SLIPPAGE_EXCEEDED');
    expect(await codeOf(planBuy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') }, PRODUCTION))).toBe(
      'TOKEN_NETWORK_MISMATCH',
    );
    const big = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const t2 = await launch(big);
    expect(await codeOf(planBuy(big, { kind: 'usd', tokenId: t2.tokenId, usdAmount: parseUsd('17172.799812') }))).toBe(
      'CURVE_CAPACITY_EXCEEDED',
    );
  });

  it('buy-size bounds speak dollars: token_buy_tokens names what the tokens cost on a fresh curve, with minUsd, maxUsd and costUsd', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const refusal = async (p: Promise<unknown>) => {
      const e = await p.then(
        () => null,
        (err: unknown) => err as DomainError,
      );
      expect(e?.code).toBe('VALIDATION_ERROR');
      return { message: e!.message, details: e!.details };
    };
    expect(await refusal(planBuy(deps, { kind: 'tokens', tokenId, tokens: parseTokens('1000') }))).toEqual({
      message: '1000 tokens cost $0.005649, below the $0.01 minimum buy',
      details: {
        issues: [{ path: 'tokens', message: '1000 tokens cost $0.005649, below the $0.01 minimum buy' }],
        costUsd: '0.005649',
        minUsd: '0.01',
        maxUsd: '10000',
      },
    });
    const tooMany = await refusal(planBuy(deps, { kind: 'tokens', tokenId, tokens: parseTokens('700000000') }));
    expect(tooMany.message).toMatch(/^700000000 tokens cost \$\d+\.\d+, above the \$10000 maximum buy$/);
    expect(tooMany.details).toMatchObject({ minUsd: '0.01', maxUsd: '10000' });
    expect(await refusal(planBuy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('0.005') }))).toMatchObject({
      message: '$0.005 is below the $0.01 minimum buy',
      details: { issues: [{ path: 'usdAmount' }], costUsd: '0.005', minUsd: '0.01', maxUsd: '10000' },
    });
    // GET /api/quote prices with the same bounds and says the same.
    expect((await refusal(createQuote(deps, { tokenId, side: 'buy', tokens: parseTokens('1000'), slippageBps: 100n }))).message).toBe(
      '1000 tokens cost $0.005649, below the $0.01 minimum buy',
    );
  });

  it('buying the rest of the curve graduates the token; then buys and sells are TOKEN_GRADUATED', async () => {
    const deps = makeDeps({ maxBuyUsd: parseUsd('20000') });
    const { tokenId } = await launch(deps);
    const result = await buy(deps, { kind: 'tokens', tokenId, tokens: parseTokens('793100000') });
    expect(result.tokensReceived).toBe('793100000');
    const token = await getToken(deps, tokenId);
    expect(token).toMatchObject({ state: 'GRADUATED', graduatedAt: '2026-11-23T12:00:00.000Z', curve: { progress: '1' } });
    expect(deps.uow.db.events.map((e) => e.type)).toEqual(['token.created', 'trade.executed', 'earnings.accrued', 'token.graduated']);
    expect(await codeOf(planBuy(deps, { kind: 'usd', tokenId, usdAmount: 10_000n }))).toBe('TOKEN_GRADUATED');
    expect(await codeOf(sellOf(deps, tokenId, 1n).then((c) => checkSell(deps, c)))).toBe('TOKEN_GRADUATED');
  });

  it('a paid buy marks its payment APPLIED in the same transaction, and only once', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    const payment = await settledPayment(deps, 5_000_000n);
    const plan = await planBuy(deps, { kind: 'usd', tokenId, usdAmount: 5_000_000n });
    const result = await buyToken(deps, { plan, buyer: WALLET_A, network: TESTNET }, { payment });
    expect(result.payment).toEqual({ paymentId: payment.paymentId, network: TESTNET, payer: WALLET_A, transaction: '0xsettled' });
    expect(result.trade.paymentId).toBe(payment.paymentId);
    expect((await deps.uow.run((s) => s.payments.get(payment.paymentId)))?.state).toBe('APPLIED');
    // applying the same payment again rolls back entirely: no second trade
    expect(await codeOf(buyToken(deps, { plan, buyer: WALLET_A, network: TESTNET }, { payment }))).toBe('INTERNAL_ERROR');
    expect(deps.uow.db.trades).toHaveLength(1);
  });
});

async function settledPayment(deps: Deps, amount: bigint): Promise<Payment> {
  const now = deps.clock.now();
  const verified: Payment = {
    paymentId: deps.ids.next('pay'),
    network: TESTNET,
    payer: WALLET_A,
    nonce: `0x${'1'.repeat(64)}`,
    asset: 'USDC',
    amount,
    usdValue: amount,
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
  const settled = transitionPayment(transitionPayment(verified, 'SETTLING', now), 'SETTLED', now, { settlementTx: '0xsettled' });
  await deps.uow.run((s) => s.payments.claim(settled));
  return settled;
}

describe('sellToken', () => {
  it('sells half of the $5 buy for 2.451259 USDC, queues the payout and realizes PnL', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') });
    const result = await sellToken(deps, await sellOf(deps, tokenId, parseTokens('442247.645692303849324307')));
    expect(result).toMatchObject({
      tokensSold: '442247.645692303849324307',
      usdReceived: '2.451259',
      feeUsd: '0.024761',
      position: { balance: '442247.645692303849324307', costBasisUsd: '2.5', realizedPnlUsd: '-0.048741' },
      trade: { side: 'sell', usdAmount: '2.47602', feeUsd: '0.024761' },
      payout: { amount: '2.451259', reason: 'sell', state: 'PENDING', wallet: WALLET_A, network: TESTNET },
    });
    expect(deps.uow.db.payouts.size).toBe(1);
  });

  it('refuses selling more than the wallet holds on chain, below minUsdOut, or on another network', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') });
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') }, WALLET_B);
    const all = parseTokens('884495.291384607698648614');
    const seller = { wallet: WALLET_A, network: TESTNET } as const;
    expect(await codeOf(checkSell(deps, await sellOf(deps, tokenId, all + 1n), seller))).toBe('INSUFFICIENT_BALANCE');
    expect(await codeOf(checkSell(deps, { ...(await sellOf(deps, tokenId, all)), minUsdOut: parseUsd('5') }, seller))).toBe('SLIPPAGE_EXCEEDED');
    // Past the checks (a settled sell), the chain refuses the pull: nothing is taken.
    expect(await codeOf(sellToken(deps, await sellOf(deps, tokenId, all + 1n)))).toBe('TOKEN_AUTHORIZATION_INVALID');
    expect(await codeOf(sellToken(deps, await sellOf(deps, tokenId, 1n, WALLET_A, PRODUCTION)))).toBe('TOKEN_NETWORK_MISMATCH');
    // another wallet paying for A's authorization: 409, nothing charged
    const paidByB = await codeOf(checkSell(deps, await sellOf(deps, tokenId, all), { wallet: WALLET_B, network: TESTNET }));
    expect(paidByB).toBe('TOKEN_AUTHORIZATION_INVALID');
    // without a known seller, the authorization and the chain still speak
    expect(await codeOf(checkSell(deps, await sellOf(deps, tokenId, all)))).toBe('OK');
    expect(await codeOf(checkSell(deps, await sellOf(deps, tokenId, 3n * all)))).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('queries', () => {
  it('listTokens pages newest first with filters and sorts', async () => {
    const deps = makeDeps();
    const ids: string[] = [];
    for (const s of ['AAA', 'BBB', 'CCC', 'ABC', 'DDD']) {
      ids.push((await launch(deps, s, s === 'DDD' ? PRODUCTION : TESTNET)).tokenId);
      deps.clock.advance(1000);
    }
    const page1 = await listTokens(deps, { limit: 2 });
    expect(page1.items.map((t) => t.symbol)).toEqual(['DDD', 'ABC']);
    const page2 = await listTokens(deps, { limit: 2, cursor: page1.nextCursor! });
    const page3 = await listTokens(deps, { limit: 2, cursor: page2.nextCursor! });
    expect([...page2.items, ...page3.items].map((t) => t.symbol)).toEqual(['CCC', 'BBB', 'AAA']);
    expect(page3.nextCursor).toBeNull();
    expect((await listTokens(deps, { network: PRODUCTION })).items.map((t) => t.symbol)).toEqual(['DDD']);
    expect((await listTokens(deps, { q: 'a' })).items.map((t) => t.symbol)).toEqual(['ABC', 'AAA']);
    await buy(deps, { kind: 'usd', tokenId: ids[1]!, usdAmount: parseUsd('3') });
    await buy(deps, { kind: 'usd', tokenId: ids[2]!, usdAmount: parseUsd('7') });
    expect((await listTokens(deps, { sort: 'marketCap', limit: 2 })).items.map((t) => t.symbol)).toEqual(['CCC', 'BBB']);
    expect((await listTokens(deps, { sort: 'volume24h', limit: 2 })).items.map((t) => t.symbol)).toEqual(['CCC', 'BBB']);
  });

  it('listPositions values positions at spot with totals, and hides closed ones on request', async () => {
    const deps = makeDeps();
    const a = await launch(deps, 'AAA');
    const b = await launch(deps, 'BBB');
    await buy(deps, { kind: 'usd', tokenId: a.tokenId, usdAmount: parseUsd('5') });
    const r = await buy(deps, { kind: 'usd', tokenId: b.tokenId, usdAmount: parseUsd('1') });
    await sellToken(deps, await sellOf(deps, b.tokenId, parseTokens(r.tokensReceived)));
    const all = await listPositions(deps, { wallet: WALLET_A, network: TESTNET });
    expect(all.items.map((p) => [p.symbol, p.balance])).toEqual([
      ['AAA', '884495.291384607698648614'],
      ['BBB', '0'],
    ]);
    expect(all.totals.costBasisUsd).toBe('5');
    expect(all.totals.unrealizedPnlUsd).toBe(
      (Number(all.totals.valueUsd) - 5).toFixed(6).replace(/0+$/, ''),
    );
    const open = await listPositions(deps, { wallet: WALLET_A.toLowerCase(), network: TESTNET, includeZero: false });
    expect(open.items.map((p) => p.symbol)).toEqual(['AAA']);
    expect((await listPositions(deps, { wallet: WALLET_A, network: PRODUCTION })).items).toEqual([]);
  });

  it('candles plot the price without the fee: under the launch fee a buy is not drawn at twice the curve\'s price', async () => {
    const deps = makeDeps({ launchFee: { startBps: 5000n, decayMs: 60_000n } });
    const { tokenId } = await launch(deps);
    const before = Number((await getToken(deps, tokenId)).priceUsd);
    const bought = await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') });
    const spotAfter = (await getToken(deps, tokenId)).priceUsd;
    const after = Number(spotAfter);
    // The live event says the curve's price right after the trade, beside the trade.
    const executed = deps.uow.db.events.find((e) => e.type === 'trade.executed')!;
    expect((executed.data as { spotPriceUsd?: string }).spotPriceUsd).toBe(spotAfter);
    const trade = (await listTrades(deps, tokenId, { limit: 10 })).items[0]!;
    expect(Number(trade.feeUsd)).toBeGreaterThan(2); // about half of $5
    expect(Number(trade.priceUsd)).toBeGreaterThan(after * 1.5); // what the buyer paid per token, fee included
    const execution = Number(trade.executionPriceUsd);
    expect(execution).toBeGreaterThan(before);
    expect(execution).toBeLessThan(after);
    const [candle] = (await candles(deps, tokenId, { interval: '1m' })).items;
    expect(candle!.close).toBe(trade.executionPriceUsd);
    expect(bought.trade.executionPriceUsd).toBe(trade.executionPriceUsd);
  });

  it('token info, trades, holders, candles and stats describe the trading', async () => {
    const deps = makeDeps();
    const { tokenId } = await launch(deps);
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('5') });
    deps.clock.advance(60_000);
    await buy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd('15') }, WALLET_B);
    const info = await tokenInfo(deps, tokenId);
    expect(info.holdersTop.map((h) => h.wallet)).toEqual([WALLET_B, WALLET_A]);
    expect(info.trades24h).toBe(2);
    expect(info.volumeUsd24h).toBe('20');
    expect(Number(info.priceChange24h)).toBeGreaterThan(0);
    expect(info.candles1h).toHaveLength(1);
    expect(info.candles1h[0]).toMatchObject({ trades: 2, volumeUsd: '20' });
    const trades = await listTrades(deps, tokenId, { limit: 1 });
    expect(trades.items[0]?.wallet).toBe(WALLET_B);
    const older = await listTrades(deps, tokenId, { limit: 1, cursor: trades.nextCursor! });
    expect(older.items[0]?.wallet).toBe(WALLET_A);
    expect((await holders(deps, tokenId, 1)).items).toHaveLength(1);
    const minute = await candles(deps, tokenId, { interval: '1m' });
    expect(minute.items.map((c) => c.trades)).toEqual([1, 1]);
    expect((await stats(deps)).networks).toEqual([
      { network: PRODUCTION, tokens: 0, trades: 0, volumeUsd: '0', feesUsd: '0' },
      { network: TESTNET, tokens: 1, trades: 2, volumeUsd: '20', feesUsd: '0.2' },
    ]);
  });
});
