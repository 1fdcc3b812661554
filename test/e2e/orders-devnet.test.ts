/**
 * Orders on the embedded devnet (issue #38, docs/api.md "Orders"), placements paid with the
 * official @x402/fetch client, on SQLite: a limit buy placed below the price executes when sells
 * bring the price down (the wallet's USDC drops by exactly its amount, its tokens on chain equal
 * its position); a stop-loss and a take-profit execute on their crossings and pay out exactly; a
 * cancelled and an expired order never execute; a buy whose wallet emptied itself fails and books
 * nothing; bad input is refused and charges nothing; and the books equal the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, erc20Abi, http, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { formatAmount, parseAmount, parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { collectHeld } from '../../src/app/held/collect.js';
import { orderKey, RESUME_MARGIN_MS } from '../../src/app/orders/execute-orders.js';
import { moveOrder } from '../../src/app/orders/move-order.js';
import { expectBooksEqualChain, TREASURY, waitUntilFinished } from '../support/books.js';
import { testDatabases } from '../support/databases.js';
import { devnetTools } from '../support/devnet.js';
import { signedSellBody } from '../support/onchain.js';
import { devnetConfig, drainWorkers, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const [creator, seller, orderer, emptier] = [devAccount(5), devAccount(6), devAccount(7), devAccount(8)];
const [name, openStore] = testDatabases('orders')[0]!;

describe(`orders on the devnet, on ${name}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-orders-'));
  const clock = new ShiftableClock();
  let service: RunningService;
  let url: string;
  let cleanup: () => Promise<void>;
  let tokenId: string;
  let chain: PublicClient;
  const usdcBefore = new Map<string, bigint>();
  let treasuryBefore: bigint;

  const usdc = (address: string) => devnetTools(service.devnet!).usdcBalance(TESTNET, address as Hex);
  const drain = (passes = 6) => drainWorkers(service, clock, passes);
  const post = (account: PrivateKeyAccount, path: string, body: unknown, f: typeof fetch = payingFetch(account)) =>
    f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': account.address }, body: JSON.stringify(body) });
  const get = async (path: string) => json(await fetch(`${service.url}${path}`));
  /** The spot price now, × bps / 10000, as a trigger string. */
  const priceAt = async (bps: bigint) => formatAmount((parseAmount((await get(`/tokens/${tokenId}`)).data.priceUsd, 18) * bps) / 10_000n, 18);
  const heldTokens = async (account: PrivateKeyAccount) => {
    const token = (await get(`/tokens/${tokenId}`)).data;
    return chain.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
  };

  /** An order as a wallet places it: the typed data from the service, signed, sent with an x402 payment. */
  async function orderBody(account: PrivateKeyAccount, o: { kind: string; triggerPriceUsd: string; usdAmount?: string; tokens?: string; expiresInMs?: number }) {
    const expiresAt = new Date(clock.now().getTime() + (o.expiresInMs ?? 3_600_000)).toISOString();
    const amount = o.usdAmount ? `usdAmount=${o.usdAmount}` : `tokens=${o.tokens}`;
    const auth = await get(`/api/orders/authorization?wallet=${account.address}&tokenId=${tokenId}&kind=${o.kind}&${amount}&expiresAt=${expiresAt}`);
    if (!auth.data) throw new Error(JSON.stringify(auth));
    const { typedData, authorization } = auth.data;
    const signature = await account.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: { ...typedData.message, value: BigInt(typedData.message.value), validAfter: BigInt(typedData.message.validAfter), validBefore: BigInt(typedData.message.validBefore) },
    });
    const { expiresInMs: _, ...rest } = o;
    return { tokenId, ...rest, expiresAt, authorization: { ...authorization, signature } };
  }
  async function place(account: PrivateKeyAccount, o: Parameters<typeof orderBody>[1]) {
    const res = await post(account, '/entrypoints/order_place', await orderBody(account, o));
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.data.state).toBe('OPEN');
    return body.data as { orderId: string };
  }
  const orderOf = async (orderId: string) => (await get(`/api/orders/${orderId}`)).data;
  async function sellDown(pct: bigint) {
    const tokens = formatAmount(((await heldTokens(seller)) * pct) / 100n, 18);
    const res = await post(seller, '/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, tokens));
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    let uow;
    ({ uow, url, cleanup } = await openStore());
    service = await startService(await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0', EARNINGS_PAYOUT_MIN_USD: '0.01', LOG_LEVEL: process.env.ORDERS_LOG ?? 'silent' }), { ports: { clock, uow } });
    chain = devnetTools(service.devnet!).publicClient(TESTNET) as PublicClient;
    for (const w of [creator, seller, orderer, emptier]) usdcBefore.set(w.address, await usdc(w.address));
    treasuryBefore = await usdc(TREASURY);
    tokenId = (await json(await post(creator, '/tokens', { name: 'Orders', symbol: 'ORDR' }))).data.tokenId;
    await drain(); // deployed
    expect((await post(seller, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '300' })).status).toBe(200);
    expect((await post(orderer, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '20' })).status).toBe(200);
    await drain(); // delivered
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses bad orders before any payment: trigger 0, another wallet, more tokens than held, another amount — nothing charged', async () => {
    const before = await usdc(orderer.address);
    const zero = await orderBody(orderer, { kind: 'limit_buy', triggerPriceUsd: '0', usdAmount: '5' });
    const res = await post(orderer, '/entrypoints/order_place', zero);
    expect((await json(res)).error.code).toBe('VALIDATION_ERROR');
    const byOther = await orderBody(emptier, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_000n), usdAmount: '5' });
    expect((await json(await post(orderer, '/entrypoints/order_place', byOther))).error).toMatchObject({ code: 'HELD_AUTHORIZATION_INVALID', details: { reason: 'wallet' } });
    const tooMany = formatAmount((await heldTokens(orderer)) + 1n, 18);
    const over = await orderBody(orderer, { kind: 'stop_loss', triggerPriceUsd: await priceAt(9_000n), tokens: tooMany });
    expect((await json(await post(orderer, '/entrypoints/order_place', over))).error.code).toBe('INSUFFICIENT_BALANCE');
    const forFive = await orderBody(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_000n), usdAmount: '5' });
    // A signature for another amount than the order's.
    expect((await json(await post(orderer, '/entrypoints/order_place', { ...forFive, usdAmount: '6' }))).error).toMatchObject({ code: 'HELD_AUTHORIZATION_INVALID', details: { reason: 'value' } });
    expect(await usdc(orderer.address)).toBe(before);
  });

  it('a limit buy below the price executes when sells bring the price down: USDC drops by exactly its amount, tokens on chain = position', async () => {
    const order = await place(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '5' });
    await drain(2);
    expect((await orderOf(order.orderId)).state).toBe('OPEN');
    const before = await usdc(orderer.address);
    await sellDown(30n);
    await drain();
    const done = await orderOf(order.orderId);
    expect(done).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(await usdc(orderer.address)).toBe(before - parseUsd('5'));
    const positions = (await get(`/positions?wallet=${orderer.address}&network=${TESTNET}`)).data;
    const position = positions.items.find((p: { tokenId: string }) => p.tokenId === tokenId);
    expect(parseAmount(position.balance, 18)).toBe(await heldTokens(orderer));
  });

  it('a stop-loss and a take-profit execute on their crossings and pay out exactly', async () => {
    const tokens = formatAmount((await heldTokens(orderer)) / 4n, 18);
    const stop = await place(orderer, { kind: 'stop_loss', triggerPriceUsd: await priceAt(9_990n), tokens });
    const take = await place(orderer, { kind: 'take_profit', triggerPriceUsd: await priceAt(10_010n), tokens });
    const before = await usdc(orderer.address);
    await sellDown(30n);
    await drain();
    const stopped = await orderOf(stop.orderId);
    expect(stopped.state).toBe('EXECUTED');
    expect((await orderOf(take.orderId)).state).toBe('OPEN');
    const afterStop = await usdc(orderer.address);
    const stopTrade = (await get(`/api/tokens/${tokenId}/trades?limit=100`)).data.items.find((t: { tradeId: string }) => t.tradeId === stopped.tradeId);
    expect(afterStop - before).toBe(parseUsd(stopTrade.usdAmount) - parseUsd(stopTrade.feeUsd));
    expect((await post(seller, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '200' })).status).toBe(200);
    await drain();
    const taken = await orderOf(take.orderId);
    expect(taken.state).toBe('EXECUTED');
    const takeTrade = (await get(`/api/tokens/${tokenId}/trades?limit=100`)).data.items.find((t: { tradeId: string }) => t.tradeId === taken.tradeId);
    expect((await usdc(orderer.address)) - afterStop).toBe(parseUsd(takeTrade.usdAmount) - parseUsd(takeTrade.feeUsd));
  });

  it('a cancelled and an expired order never execute', async () => {
    const cancelled = await place(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '3' });
    const expiring = await place(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '3', expiresInMs: 60_000 });
    const signature = await orderer.signMessage({ message: `Cancel order ${cancelled.orderId}` });
    const res = await fetch(`${service.url}/api/orders/${cancelled.orderId}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ signature }) });
    expect((await json(res)).data.state).toBe('CANCELLED');
    clock.offsetMs += 61_000;
    await drain(1);
    expect((await orderOf(expiring.orderId)).state).toBe('EXPIRED');
    const before = await usdc(orderer.address);
    await sellDown(30n);
    await drain();
    expect((await orderOf(cancelled.orderId)).state).toBe('CANCELLED');
    expect((await orderOf(expiring.orderId)).state).toBe('EXPIRED');
    expect(await usdc(orderer.address)).toBe(before);
  });

  it('a buy whose wallet emptied itself fails with its reason and books nothing', async () => {
    const order = await place(emptier, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '5' });
    const wallet = createWalletClient({ account: emptier, chain: chain.chain, transport: http(service.devnet!.chains[TESTNET].rpcUrl) });
    const all = await usdc(emptier.address);
    const hash = await wallet.writeContract({ chain: chain.chain, address: NETWORKS[TESTNET].usdc, abi: erc20Abi, functionName: 'transfer', args: [seller.address, all] });
    await chain.waitForTransactionReceipt({ hash });
    usdcBefore.set(emptier.address, usdcBefore.get(emptier.address)! - all); // moved away by the wallet itself
    usdcBefore.set(seller.address, usdcBefore.get(seller.address)! + all);
    await sellDown(30n);
    await drain();
    expect(await orderOf(order.orderId)).toMatchObject({ state: 'FAILED', reason: 'unusable:balance', tradeId: null });
    expect((await get(`/positions?wallet=${emptier.address}&network=${TESTNET}`)).data.items).toEqual([]);
  });

  it('a wallet that trusts nobody cancels its authorization on chain: the order fails when crossed, nothing moves', async () => {
    const order = await place(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '2' });
    const nonce = (await orderOf(order.orderId)).authorization.nonce as Hex;
    await devnetTools(service.devnet!).cancelAuthorization(TESTNET, orderer, nonce);
    const before = await usdc(orderer.address);
    await sellDown(30n);
    await drain();
    expect(await orderOf(order.orderId)).toMatchObject({ state: 'FAILED', reason: 'unusable:used', tradeId: null });
    expect(await usdc(orderer.address)).toBe(before);
  });

  it('a process that died right after the collect: the order is carried on once, its USDC collected once', async () => {
    const order = await place(orderer, { kind: 'limit_buy', triggerPriceUsd: await priceAt(9_990n), usdAmount: '2' });
    const deps = service.application.deps;
    const stored = (await deps.uow.run((s) => s.orders.get(order.orderId)))!;
    // What a process does before it dies: the claim, then the collect mined on chain — and nothing more.
    await deps.uow.transaction((s) => moveOrder(s, stored, 'OPEN', 'EXECUTING', deps.clock.now()));
    const before = await usdc(orderer.address);
    await collectHeld(deps, orderKey(stored), TESTNET, NETWORKS[TESTNET].usdc, stored.authorization, tokenId);
    expect(await usdc(orderer.address)).toBe(before - parseUsd('2'));
    await sellDown(30n); // the price its claim saw crossed (a limit buy never pays more than its trigger)
    clock.offsetMs += deps.settings.pullWaitMs + RESUME_MARGIN_MS + 1; // past the wait of a process that might still hold it
    await drain(3); // the next process's passes carry it on
    expect(await orderOf(order.orderId)).toMatchObject({ state: 'EXECUTED', reason: null });
    expect(await usdc(orderer.address)).toBe(before - parseUsd('2'));
  });

  it('the books equal the chain', async () => {
    await drain(8);
    await waitUntilFinished(url, chain, 40_000);
    await expectBooksEqualChain({ databaseUrl: url, chain, wallets: [creator, seller, orderer, emptier].map((w) => w.address), usdcBefore, treasuryBefore });
  }, 60_000);
});
