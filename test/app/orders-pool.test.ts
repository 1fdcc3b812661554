/** Orders after graduation (docs/api.md "Orders"): a limit buy crossed on the token's Uniswap v2 pool executes there, once. */
import { describe, expect, it } from 'vitest';
import { FakeDexRouter } from '../../src/adapters/dex/fake/fake-dex-router.js';
import { UniswapV2TradeQuoter } from '../../src/adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { executeCrossed } from '../../src/app/orders/execute-orders.js';
import { checkPlaceOrder, placeOrder } from '../../src/app/orders/place-order.js';
import { buyToken, planBuy } from '../../src/app/use-cases/buy-token.js';
import { createToken } from '../../src/app/use-cases/create-token.js';
import { GraduationWorker } from '../../src/app/workers/graduation-worker.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';

const USDC = stablecoin(TESTNET, 'USDC');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('orders on the pool', () => {
  it('a limit buy crossed on the pool swaps there with the usual fee, once', async () => {
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
    const authorization = await signSell({
      wallet: WALLET_B,
      token: { network: TESTNET, ...USDC },
      custody: deps.tokenIssuer.custody(TESTNET),
      tokens: 5_000_000n,
      now: deps.clock.now(),
      over: { validBefore: BigInt(Math.floor(deps.clock.now().getTime() / 1000) + 7200) },
    });
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
});
