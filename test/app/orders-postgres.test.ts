/**
 * Two processes on one PostgreSQL database never execute one order twice (issue #38): each with
 * its own unit of work on the same schema and the same chain, both woken by the same crossing —
 * a burst of orders crossed at once executes each exactly once, with one trade and one collect.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { executeCrossed } from '../../src/app/orders/execute-orders.js';
import { checkPlaceOrder, placeOrder } from '../../src/app/orders/place-order.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { describeWithServices } from '../support/services.js';

const USDC = stablecoin(TESTNET, 'USDC');

describeWithServices('orders on PostgreSQL, two processes', () => {
  const schema = `orders_${randomBytes(5).toString('hex')}`;
  const url = `${POSTGRES_URL}?schema=${schema}`;
  let a: MikroOrmUnitOfWork;
  let b: MikroOrmUnitOfWork;

  beforeAll(async () => {
    a = await MikroOrmUnitOfWork.open({ url, changeFeed: false });
    b = await MikroOrmUnitOfWork.open({ url, changeFeed: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchema(schema);
  });

  it('a burst of crossed orders, raced by both processes: each executes exactly once', async () => {
    const base = makeDeps();
    const one = { ...base, uow: a };
    const two = { ...base, uow: b }; // another process: its own connection, the same chain and clock
    base.tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
    for (const w of [WALLET_A, WALLET_B]) base.tokenIssuer.mint(TESTNET, USDC.address, w, 100_000_000n);
    const { tokenId } = await createToken(one, { metadata: validateTokenMetadata({ name: 'Race coin', symbol: 'RACE' }), creator: WALLET_B, network: TESTNET });
    await settleTokens(one);
    const t = (await a.run((s) => s.tokens.get(tokenId)))!;
    const above = (t.curve.virtualUsd * 10n ** 30n * 11n) / (t.curve.virtualTokens * 10n); // crossed now
    const seconds = BigInt(Math.floor(base.clock.now().getTime() / 1000));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const wallet = i % 2 ? WALLET_A : WALLET_B;
      const authorization = await signSell({ wallet, token: { network: TESTNET, ...USDC }, custody: base.tokenIssuer.custody(TESTNET), tokens: 1_000_000n, now: base.clock.now(), over: { validBefore: seconds + 7200n } });
      const input = { tokenId, kind: 'limit_buy' as const, triggerPrice: above, usdAmount: 1_000_000n, expiresAt: new Date(base.clock.now().getTime() + 3_600_000), authorization };
      await checkPlaceOrder(one, input, { wallet, network: TESTNET });
      ids.push((await placeOrder(one, input, { wallet, network: TESTNET })).orderId);
    }
    const plan = await planBuy(one, { kind: 'usd', tokenId, usdAmount: 1_000_000n }, TESTNET);
    await buyToken(one, { plan, buyer: WALLET_B, network: TESTNET }); // a trade: both processes are woken
    const executed = await Promise.all([executeCrossed(one, tokenId), executeCrossed(two, tokenId)]);
    expect(executed[0] + executed[1]).toBe(6);
    for (const id of ids) {
      const order = (await a.run((s) => s.orders.get(id)))!;
      expect(order.state).toBe('EXECUTED');
    }
    const trades = await a.run((s) => s.trades.listByToken(tokenId, { limit: 100 }));
    expect(trades.items.filter((tr) => tr.paymentId === null)).toHaveLength(7); // the six orders' and the plain buy's
    const spent = 200_000_000n - (await base.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_A)) - (await base.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_B));
    expect(spent).toBe(6_000_000n); // each authorization collected once
  }, 60_000);
});
