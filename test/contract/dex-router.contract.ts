import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { getAmountOut } from '../../src/domain/pool.js';
import type { DexRouter } from '../../src/ports/dex-router.js';

export interface DexRouterHarness {
  dex: DexRouter;
  /** A launched token whose supply custody holds (custody holds USDC too). */
  newToken(): Promise<string>;
  /** The chain's time (unix seconds). */
  now(): Promise<bigint>;
  /** Someone else spends `usdIn` on the pool directly, moving its price. */
  tradeDirectly(token: string, usdIn: bigint): Promise<void>;
}

const network = TESTNET;
const T = 10n ** 18n;
const USD = 10n ** 6n;
const BURN = '0x000000000000000000000000000000000000dEaD';
const SEED = { tokens: 206_900_000n * T, usd: 80_000n * USD };

function sqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) [x, y] = [y, (y + n / y) / 2n];
  return x;
}

export function dexRouterContract(name: string, make: () => Promise<DexRouterHarness>) {
  describe(`DexRouter contract: ${name}`, () => {
    async function mined(h: DexRouterHarness, prepared: { rawTx: string; txHash: string }) {
      await h.dex.broadcast(network, prepared.rawTx);
      for (let attempt = 0; ; attempt++) {
        const status = await h.dex.status(network, prepared.txHash, prepared.rawTx);
        if (status !== 'pending' || attempt === 500) return status;
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    /** A token with its pool seeded as graduation seeds it. */
    async function pooled(h: DexRouterHarness) {
      const token = await h.newToken();
      expect(await mined(h, await h.dex.prepareApprove(network, token, SEED.tokens))).toBe('confirmed');
      expect(await mined(h, await h.dex.prepareApprove(network, h.dex.usdc(network), SEED.usd))).toBe('confirmed');
      const add = await h.dex.prepareAddLiquidity(network, { token, tokenAmount: SEED.tokens, usdAmount: SEED.usd, to: BURN, deadline: (await h.now()) + 600n });
      expect(await mined(h, add)).toBe('confirmed');
      return token;
    }

    async function approveUsd(h: DexRouterHarness, amount: bigint) {
      expect(await mined(h, await h.dex.prepareApprove(network, h.dex.usdc(network), amount))).toBe('confirmed');
    }

    it('knows no pair for a token that has none', async () => {
      const h = await make();
      const token = await h.newToken();
      expect(h.dex.supports(network)).toBe(true);
      expect(await h.dex.pairOf(network, token)).toBeNull();
      expect(await h.dex.reserves(network, token)).toBeNull();
    });

    it('approves the router for exactly the amount asked', async () => {
      const h = await make();
      const token = await h.newToken();
      expect(await mined(h, await h.dex.prepareApprove(network, token, 123n))).toBe('confirmed');
      expect(await h.dex.allowance(network, token)).toBe(123n);
    });

    it('seeds a new pair with exactly the amounts, LP to the burn address, once however often it is broadcast', async () => {
      const h = await make();
      const token = await h.newToken();
      await mined(h, await h.dex.prepareApprove(network, token, SEED.tokens));
      await approveUsd(h, SEED.usd);
      const add = await h.dex.prepareAddLiquidity(network, { token, tokenAmount: SEED.tokens, usdAmount: SEED.usd, to: BURN, deadline: (await h.now()) + 600n });
      expect(await mined(h, add)).toBe('confirmed');
      await h.dex.broadcast(network, add.rawTx);
      const pool = await h.dex.reserves(network, token);
      expect(pool).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
      expect(pool!.pair).toBe(await h.dex.pairOf(network, token));
      expect(await h.dex.balanceOf(network, pool!.pair, BURN)).toBe(sqrt(SEED.usd * SEED.tokens) - 1000n);
      expect(await h.dex.allowance(network, token)).toBe(0n);
    });

    it('refuses to add at another ratio to an existing pool', async () => {
      const h = await make();
      const token = await pooled(h);
      await mined(h, await h.dex.prepareApprove(network, token, SEED.tokens));
      await approveUsd(h, SEED.usd);
      const add = await h.dex.prepareAddLiquidity(network, { token, tokenAmount: SEED.tokens, usdAmount: SEED.usd / 2n, to: BURN, deadline: (await h.now()) + 600n });
      expect(await mined(h, add)).toBe('reverted');
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
    });

    it('swaps USDC for tokens at exactly getAmountOut, and tokens back for USDC', async () => {
      const h = await make();
      const token = await pooled(h);
      const usdIn = 1_234_567n;
      const expected = getAmountOut(usdIn, SEED.usd, SEED.tokens);
      await approveUsd(h, usdIn);
      const buy = await h.dex.prepareSwap(network, {
        tokenIn: h.dex.usdc(network),
        tokenOut: token,
        amountIn: usdIn,
        amountOutMin: expected,
        to: h.dex.custody(network),
        deadline: (await h.now()) + 600n,
      });
      expect(await mined(h, buy)).toBe('confirmed');
      expect(await h.dex.swapOutcome(network, buy.txHash)).toEqual({ amountIn: usdIn, amountOut: expected });
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd + usdIn, tokens: SEED.tokens - expected });

      const usdBack = getAmountOut(expected, SEED.tokens - expected, SEED.usd + usdIn);
      await mined(h, await h.dex.prepareApprove(network, token, expected));
      const sell = await h.dex.prepareSwap(network, {
        tokenIn: token,
        tokenOut: h.dex.usdc(network),
        amountIn: expected,
        amountOutMin: usdBack,
        to: h.dex.custody(network),
        deadline: (await h.now()) + 600n,
      });
      expect(await mined(h, sell)).toBe('confirmed');
      expect(await h.dex.swapOutcome(network, sell.txHash)).toEqual({ amountIn: expected, amountOut: usdBack });
    });

    it('reverts a swap that would give less than amountOutMin, e.g. after someone else moved the pool; nothing moves', async () => {
      const h = await make();
      const token = await pooled(h);
      const usdIn = 5n * USD;
      const quoted = getAmountOut(usdIn, SEED.usd, SEED.tokens);
      await h.tradeDirectly(token, 1_000n * USD);
      const moved = await h.dex.reserves(network, token);
      await approveUsd(h, usdIn);
      const swap = await h.dex.prepareSwap(network, {
        tokenIn: h.dex.usdc(network),
        tokenOut: token,
        amountIn: usdIn,
        amountOutMin: quoted,
        to: h.dex.custody(network),
        deadline: (await h.now()) + 600n,
      });
      expect(await mined(h, swap)).toBe('reverted');
      expect(await h.dex.swapOutcome(network, swap.txHash)).toBeNull();
      expect(await h.dex.reserves(network, token)).toEqual(moved);
    });

    it('reverts a swap past its deadline', async () => {
      const h = await make();
      const token = await pooled(h);
      await approveUsd(h, USD);
      const swap = await h.dex.prepareSwap(network, {
        tokenIn: h.dex.usdc(network),
        tokenOut: token,
        amountIn: USD,
        amountOutMin: 0n,
        to: h.dex.custody(network),
        deadline: (await h.now()) - 10n,
      });
      expect(await mined(h, swap)).toBe('reverted');
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
    });
  });
}
