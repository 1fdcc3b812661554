/**
 * Graduation on the embedded devnet, paid with the official @x402/fetch client (docs/api.md "Graduation and the Uniswap v2 pool"): a
 * token is bought out (a buy past the line is refused before payment with its maxUsd), its
 * Uniswap v2 pool appears with exactly the ledger's reserves, the LP tokens are burned, and the
 * on-chain balances always add up to the total supply.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, erc20Abi, http, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_UNISWAP_V2 } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { UNISWAP_V2_FACTORY, UNISWAP_V2_PAIR } from '../../src/adapters/kit/evm/contracts/uniswap-v2.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { getAmountOut } from '../../src/domain/pool.js';
import { devnetTools, OUTSIDER_GAS } from '../support/devnet.js';
import { devnetConfig, drainUntil, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-graduation-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
let service: RunningService;
let moveThePoolAfterSettle: (() => Promise<void>) | null = null;
const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const BURN = '0x000000000000000000000000000000000000dEaD';

beforeAll(async () => {
  const config = await devnetConfig(dataDir, {
    DEVNET_IDLE_BLOCK_SECONDS: '0',
    // A curve a hundred times cheaper, so a demo wallet can buy it out.
    CURVE_VIRTUAL_USD: '60',
    GRADUATION_FEE_USD: '1.5',
    // The creator here is the buyer: its fee shares stay unpaid, so its USDC moves only by its trades.
    EARNINGS_PAYOUT_MIN_USD: '1000000',
  });
  service = await startService(config, {
    ports: { clock, uow },
    hooks: {
      // Someone else trades on the pool between our settlement and our swap.
      afterSettle: async () => {
        const move = moveThePoolAfterSettle;
        moveThePoolAfterSettle = null;
        if (move) await move();
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const wallet = devAccount(6);
const client = () => service.devnet!.publicClient(TESTNET);

function call(path: string, body: unknown) {
  return payingFetch(wallet)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });
}

const drainWorkers = (passes = 12) => drain(service, clock, passes);

const balanceOf = (token: Hex, holder: string) => client().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Hex] });

describe('graduation on the devnet', () => {
  it('a bought-out token gets a Uniswap v2 pool holding exactly the ledger’s figures, LP burned, supply conserved', async () => {
    const tokenId = (await json(await call('/tokens', { name: 'Graduate', symbol: 'GRAD' }))).data.tokenId as string;
    await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '20' }));

    // Past the line: refused before payment, saying what the rest costs.
    const before = await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address);
    const refused = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ tokenId, usdAmount: '9000' }),
    });
    expect(refused.status).toBe(409);
    const error = (await json(refused)).error;
    expect(error.code).toBe('CURVE_CAPACITY_EXCEEDED');
    expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(before);

    const last = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: error.details.maxUsd }))).data;
    expect(last.tokensReceived).toBeDefined();
    let token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
    expect(token.state).toBe('GRADUATED');
    expect(token.pool).toEqual({ dex: 'uniswap-v2', state: 'PENDING', address: null, txHash: null });

    await drainWorkers();
    token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
    expect(token.pool.state).toBe('CREATED');
    const address = token.address as Hex;
    const pair = (await client().readContract({
      address: DEVNET_UNISWAP_V2.factory,
      abi: UNISWAP_V2_FACTORY.abi,
      functionName: 'getPair',
      args: [address, NETWORKS[TESTNET].usdc],
    })) as Hex;
    expect(token.pool.address).toBe(pair);
    // The pool holds the unsold supply and the curve's real USD less the graduation fee, to the unit.
    const [r0, r1] = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' })) as readonly [bigint, bigint, number];
    const token0 = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'token0' })) as Hex;
    const usdFirst = token0.toLowerCase() === NETWORKS[TESTNET].usdc.toLowerCase();
    const reserves = { usd: usdFirst ? r0 : r1, tokens: usdFirst ? r1 : r0 };
    expect(reserves.tokens).toBe(parseTokens('206900000'));
    expect(reserves.usd).toBe(parseUsd(token.curve.realUsdReserve) - parseUsd('1.5'));
    // The LP tokens are burned: all of them but the pair's locked minimum sit at the dead address.
    const lpSupply = await client().readContract({ address: pair, abi: erc20Abi, functionName: 'totalSupply' });
    expect(await balanceOf(pair, BURN)).toBe(lpSupply - 1000n);
    expect(await balanceOf(pair, TREASURY)).toBe(0n);
    // Every token is somewhere: buyer, pool, custody (nothing left in custody but rounding of the curve).
    const supply = parseTokens(token.totalSupply) as bigint;
    const held = (await balanceOf(address, wallet.address)) + (await balanceOf(address, pair)) + (await balanceOf(address, TREASURY));
    expect(held).toBe(supply);
    expect(await balanceOf(address, wallet.address)).toBe(parseTokens('793100000'));
    expect(uow.db.events.filter((e) => e.type === 'token.pool_created')).toHaveLength(1);

    // Quotes now come from the pool, read on chain, with the pair's exact math and our 1 % fee.
    const quote = (await json(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=buy&usdAmount=10`))).data;
    expect(quote.provider).toBe('uniswap-v2');
    expect(parseTokens(quote.tokens)).toBe(getAmountOut(parseUsd('9.9'), reserves.usd, reserves.tokens));
    const sellQuote = (await json(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=sell&tokens=1000000`))).data;
    const gross = getAmountOut(parseTokens('1000000'), reserves.tokens, reserves.usd);
    expect(parseUsd(sellQuote.usdAmount)).toBe(gross - (gross + 99n) / 100n);

    // A paid buy swaps on the pool: exactly the pool's output for $9.90, booked as a uniswap-v2 trade, delivered.
    const paidBefore = await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address);
    const bought = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '10' }))).data;
    expect(parseTokens(bought.tokensReceived)).toBe(getAmountOut(parseUsd('9.9'), reserves.usd, reserves.tokens));
    expect(bought.trade.venue).toBe('uniswap-v2');
    await drainWorkers(4);
    expect(await balanceOf(address, wallet.address)).toBe(parseTokens('793100000') + parseTokens(bought.tokensReceived));
    expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(paidBefore - parseUsd('10'));
    const [s0, s1] = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' })) as readonly [bigint, bigint, number];
    expect(usdFirst ? s0 : s1).toBe(reserves.usd + parseUsd('9.9'));
    // Buyer, pool, custody, and the wallet that trades on the pool directly below.
    const everywhere = async () =>
      (await balanceOf(address, wallet.address)) + (await balanceOf(address, pair)) + (await balanceOf(address, TREASURY)) + (await balanceOf(address, devAccount(7).address));
    expect(await everywhere()).toBe(supply);
    const trades = (await json(await fetch(`${service.url}/api/tokens/${tokenId}/trades`))).data;
    expect(trades.items.map((t: { venue: string }) => t.venue).slice(0, 2)).toEqual(['uniswap-v2', 'curve']);

    // A bound the pool cannot meet: refused before payment.
    const unreachable = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ tokenId, usdAmount: '10', minTokensOut: '1000000000' }),
    });
    expect(unreachable.status).toBe(409);
    expect((await json(unreachable)).error.code).toBe('SLIPPAGE_EXCEEDED');

    // Someone trades on the pool directly between our settlement and our swap: the bound
    // (from the quote, less 1 %) cannot be met, the swap is not sent and the payment is refunded.
    moveThePoolAfterSettle = async () => {
      const trader = devAccount(7);
      const { createWalletClient, http } = await import('viem');
      const { viemChain } = await import('../../src/adapters/kit/evm/viem-chain.js');
      const { UNISWAP_V2_ROUTER } = await import('../../src/adapters/kit/evm/contracts/uniswap-v2.js');
      const url = service.devnet!.chains[TESTNET].rpcUrl;
      const w = createWalletClient({ account: trader, chain: viemChain(TESTNET, url), transport: http(url) });
      const usdc = NETWORKS[TESTNET].usdc as Hex;
      // What went wrong, if anything, is reported by the assertion after the call (a throw here would only be a 500).
      try {
        const approve = { address: usdc, abi: erc20Abi, functionName: 'approve', args: [DEVNET_UNISWAP_V2.router, parseUsd('2000')] } as const;
        const approved = await client().waitForTransactionReceipt({ hash: await w.writeContract(approve) });
        if (approved.status !== 'success') throw new Error(`the outsider's approve ${approved.transactionHash} reverted`);
        const deadline = (await client().getBlock()).timestamp + 600n;
        const swap = { address: DEVNET_UNISWAP_V2.router, abi: UNISWAP_V2_ROUTER.abi, functionName: 'swapExactTokensForTokens', args: [parseUsd('2000'), 0n, [usdc, address], trader.address, deadline], gas: OUTSIDER_GAS.swap } as const;
        const swapped = await client().waitForTransactionReceipt({ hash: await w.writeContract(swap) });
        if (swapped.status !== 'success') {
          const why = await client().simulateContract({ ...swap, account: trader.address, blockNumber: swapped.blockNumber - 1n }).then(() => 'no revert when simulated', (e: Error) => e.message.split('\n')[0]);
          throw new Error(`the outsider's swap ${swapped.transactionHash} reverted (deadline ${deadline}): ${why}`);
        }
        const [m0, m1] = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' })) as readonly [bigint, bigint, number];
        moved = (usdFirst ? m0 : m1) === reserves.usd + parseUsd('9.9') + parseUsd('2000') || `reserves after the outsider's swap: ${m0}, ${m1}`;
      } catch (e) {
        moved = (e as Error).message;
      }
    };
    let moved: boolean | string = 'the hook after settlement did not run';
    const beforeRefund = await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address);
    const refusedAfterPay = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '10' });
    const refusedBody = await json(refusedAfterPay);
    expect({ moved, status: refusedAfterPay.status }, JSON.stringify(refusedBody)).toEqual({ moved: true, status: 409 });
    expect(refusedBody.error?.code, `${refusedAfterPay.status} ${JSON.stringify(refusedBody)}`).toBe('SLIPPAGE_EXCEEDED');
    expect(refusedBody.error.details.refund).toBeDefined();
    await drainWorkers(4);
    expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(beforeRefund);
    expect(uow.db.trades.filter((t) => t.tokenId === tokenId && t.venue === 'uniswap-v2')).toHaveLength(1);

    // A sell: custody pulls the tokens as on the curve, swaps them on the pool, pays out the proceeds less 1 %.
    await drainWorkers(4);
    const [q0, q1] = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' })) as readonly [bigint, bigint, number];
    const now = { usd: usdFirst ? q0 : q1, tokens: usdFirst ? q1 : q0 };
    const sellGross = getAmountOut(parseTokens('1000000'), now.tokens, now.usd);
    const beforeSell = await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address);
    const sold = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, wallet, tokenId, '1000000')))).data;
    expect(parseUsd(sold.usdReceived)).toBe(sellGross - (sellGross + 99n) / 100n);
    expect(sold.trade.venue).toBe('uniswap-v2');
    await drainWorkers(4);
    expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(beforeSell - parseUsd('0.01') + parseUsd(sold.usdReceived));
    expect(await everywhere()).toBe(supply);
  }, 120_000);

  for (const how of ['sync', 'addLiquidity'] as const) {
    it(`an outsider who created and filled the pair first (${how}) cannot freeze graduation, gains nothing, and holders trade through the pool`, async () => {
      const griefer = devAccount(8);
      const { createWalletClient, http } = await import('viem');
      const { viemChain } = await import('../../src/adapters/kit/evm/viem-chain.js');
      const { UNISWAP_V2_ROUTER } = await import('../../src/adapters/kit/evm/contracts/uniswap-v2.js');
      const url = service.devnet!.chains[TESTNET].rpcUrl;
      const g = createWalletClient({ account: griefer, chain: viemChain(TESTNET, url), transport: http(url) });
      const ok = async (hash: Hex) => expect((await client().waitForTransactionReceipt({ hash })).status).toBe('success');
      const usdc = NETWORKS[TESTNET].usdc as Hex;

      const tokenId = (await json(await call('/tokens', { name: `Griefed ${how}`, symbol: 'GRF' }))).data.tokenId as string;
      // The griefer buys a little through the service, like anyone.
      const bought = await payingFetch(griefer)(`${service.url}/entrypoints/token_buy_usd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': griefer.address },
        body: JSON.stringify({ tokenId, usdAmount: '1' }),
      });
      expect(bought.status).toBe(200);
      const { deliveryId } = (await json(bought)).data.delivery;
      // Deployed, then delivered: as many passes as the chain's receipts take under load.
      await drainUntil(service, clock, async () => (await json(await fetch(`${service.url}/api/deliveries/${deliveryId}`))).data.state === 'CONFIRMED');
      const address = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data.address as Hex;
      const griefTokens = await balanceOf(address, griefer.address);
      expect(griefTokens).toBeGreaterThan(0n);
      const wealthBefore = { usd: await devnetTools(service.devnet!).usdcBalance(TESTNET, griefer.address), tokens: griefTokens };

      // Then creates the pair and fills it: dust made reserves, or liquidity at about a tenth of the curve's price.
      if (how === 'sync') {
        await ok(await g.writeContract({ address: DEVNET_UNISWAP_V2.factory, abi: UNISWAP_V2_FACTORY.abi, functionName: 'createPair', args: [address, usdc] }));
        const pair = (await client().readContract({ address: DEVNET_UNISWAP_V2.factory, abi: UNISWAP_V2_FACTORY.abi, functionName: 'getPair', args: [address, usdc] })) as Hex;
        await ok(await g.writeContract({ address, abi: erc20Abi, functionName: 'transfer', args: [pair, 1n] }));
        await ok(await g.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [pair, 1n] }));
        await ok(await g.writeContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'sync', gas: OUTSIDER_GAS.swap }));
      } else {
        for (const asset of [address, usdc]) await ok(await g.writeContract({ address: asset, abi: erc20Abi, functionName: 'approve', args: [DEVNET_UNISWAP_V2.router, griefTokens] }));
        const deadline = (await client().getBlock()).timestamp + 600n;
        await ok(
          await g.writeContract({
            address: DEVNET_UNISWAP_V2.router,
            abi: UNISWAP_V2_ROUTER.abi,
            functionName: 'addLiquidity',
            args: [address, usdc, griefTokens / 2n, parseUsd('0.05'), 0n, 0n, griefer.address, deadline],
            gas: OUTSIDER_GAS.liquidity,
          }),
        );
      }

      // The curve sells out; graduation goes through anyway.
      const refused = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify({ tokenId, usdAmount: '9000' }),
      });
      const maxUsd = (await json(refused)).error.details.maxUsd as string;
      await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: maxUsd }));
      await drainWorkers();
      const token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
      expect(token.pool.state).toBe('CREATED');
      const pair = token.pool.address as Hex;
      const [r0, r1] = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' })) as readonly [bigint, bigint, number];
      const token0 = (await client().readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'token0' })) as Hex;
      const usdFirst = token0.toLowerCase() === usdc.toLowerCase();
      const pool = { usd: usdFirst ? r0 : r1, tokens: usdFirst ? r1 : r0 };
      // At the curve's final price (real USD less the fee, over the unsold supply) to a part in a million.
      const seed = { usd: parseUsd(token.curve.realUsdReserve) - parseUsd('1.5'), tokens: parseTokens('206900000') };
      const off = pool.usd * seed.tokens - seed.usd * pool.tokens;
      expect((off < 0n ? -off : off) * 1_000_000n).toBeLessThanOrEqual(seed.usd * pool.tokens);

      // The griefer ends with less than they had, valued at the pool's price (their LP included).
      const lp = await balanceOf(pair, griefer.address);
      const lpSupply = await client().readContract({ address: pair, abi: erc20Abi, functionName: 'totalSupply' });
      const worth = (w: { usd: bigint; tokens: bigint }) => w.usd + (w.tokens * pool.usd) / pool.tokens;
      const after = {
        usd: (await devnetTools(service.devnet!).usdcBalance(TESTNET, griefer.address)) + (pool.usd * lp) / lpSupply,
        tokens: (await balanceOf(address, griefer.address)) + (pool.tokens * lp) / lpSupply,
      };
      expect(worth(after)).toBeLessThanOrEqual(worth(wealthBefore));

      // Holders trade through the pool: a sell and a buy.
      const sold = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, wallet, tokenId, '1000000')))).data;
      expect(sold.trade.venue).toBe('uniswap-v2');
      const more = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }))).data;
      expect(more.trade.venue).toBe('uniswap-v2');
      await drainWorkers(4);
      // Every token is somewhere: holders, the pool, custody, the burn address.
      const everywhere = (await Promise.all([wallet.address, griefer.address, pair, TREASURY, BURN].map((h) => balanceOf(address, h)))).reduce((a, b) => a + b, 0n);
      expect(everywhere).toBe(parseTokens(token.totalSupply));
      // And the books follow: each holder's position is its balance on chain (the griefer's pair
      // filling and the seed's own transfers included), once the transfer indexer has read them.
      for (const holder of [wallet.address, griefer.address]) {
        const positions = (await json(await fetch(`${service.url}/positions?wallet=${holder}`))).data;
        const held = positions.items.find((p: { tokenId: string }) => p.tokenId === tokenId);
        expect({ holder, tokens: held ? parseTokens(held.balance) : 0n }).toEqual({ holder, tokens: await balanceOf(address, holder) });
      }
    }, 120_000);
  }

  it('a pool buy whose swap waits on a stalled chain: 202 while it waits, never refunded beside it, booked once when the block comes', async () => {
    const tokenId = (await json(await call('/tokens', { name: 'Stalled', symbol: 'STLD' }))).data.tokenId as string;
    const refused = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ tokenId, usdAmount: '9000' }),
    });
    await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: (await json(refused)).error.details.maxUsd }));
    await drainUntil(service, clock, async () => (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data.pool?.state === 'CREATED');
    const address = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data.address as Hex;
    await drainWorkers(4); // the buy-out's own deliveries
    const tokensBefore = await balanceOf(address, wallet.address);
    const usdBefore = await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address);

    // The chain stops mining right after the settlement: custody's swap is sent and waits.
    const anvil = createTestClient({ mode: 'anvil', transport: http(service.devnet!.chains[TESTNET].rpcUrl) });
    const settings = service.application.deps.settings;
    const wait = settings.pullWaitMs;
    settings.pullWaitMs = 1_000; // how long the request waits on custody's transaction before answering 202
    moveThePoolAfterSettle = () => anvil.setAutomine(false);
    let paymentId: string;
    try {
      const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '10' });
      expect(res.status, JSON.stringify(await res.clone().json())).toBe(202);
      paymentId = (await json(res)).data.paymentId as string;
      const payment = () => uow.db.payments.get(paymentId)!;
      expect(payment().state).toBe('SETTLED');
      expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(usdBefore - parseUsd('10'));
      // The reconciler follows the swap while the chain stalls — past its grace, and past its
      // 15-minute give-up: a swap stands, so the payment stays for the chain (or an operator), never refunded beside it.
      clock.offsetMs += 31_000;
      await service.runWorkers();
      expect(payment().state).toBe('SETTLED');
      clock.offsetMs += 16 * 60_000;
      await service.runWorkers();
      expect(payment().state).toBe('SETTLED');
      expect([...uow.db.payouts.values()].filter((p) => p.sourceId === paymentId)).toEqual([]);
      expect(await service.application.metrics.total('payments_stuck_in_custody_total')).toBeGreaterThan(0); // told to an operator
    } finally {
      await anvil.mine({ blocks: 1 });
      await anvil.setAutomine(true);
      settings.pullWaitMs = wait;
    }
    // The block comes: the reconciler's next look at the payment (its grace after the last) books it
    // once, at the swap's terms; the tokens and the money where the books say.
    clock.offsetMs += 31_000;
    await drainUntil(service, clock, async () => uow.db.payments.get(paymentId)!.state === 'APPLIED');
    expect(uow.db.payments.get(paymentId)!.state).toBe('APPLIED');
    const trades = uow.db.trades.filter((t) => t.paymentId === paymentId);
    expect(trades).toMatchObject([{ venue: 'uniswap-v2', side: 'buy', usdAmount: parseUsd('10') }]);
    await drainWorkers(4);
    expect(await balanceOf(address, wallet.address)).toBe(tokensBefore + trades[0]!.tokenAmount);
    expect(await devnetTools(service.devnet!).usdcBalance(TESTNET, wallet.address)).toBe(usdBefore - parseUsd('10'));
    const position = (await json(await fetch(`${service.url}/positions?wallet=${wallet.address}`))).data.items.find((p: { tokenId: string }) => p.tokenId === tokenId);
    expect(parseTokens(position.balance)).toBe(await balanceOf(address, wallet.address));
  }, 120_000);
});
