import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { getAmountOut, planPoolSeed } from '../../src/domain/pool.js';
import type { DexRouter } from '../../src/ports/dex-router.js';
import { pollUntil } from '../support/wait.js';

export interface DexRouterHarness {
  dex: DexRouter;
  /** A launched token whose supply custody holds (custody holds USDC too). */
  newToken(): Promise<string>;
  /** The chain's time (unix seconds). */
  now(): Promise<bigint>;
  /** Someone else spends `usdIn` on the pool directly, moving its price. */
  tradeDirectly(token: string, usdIn: bigint): Promise<void>;
  /**
   * An outsider creates the token's pair before graduation and puts `tokens` and `usd` in it:
   * sent and `sync`ed (no LP), or as liquidity (`liquidity: true`, LP to them). Their address.
   */
  fillPair(token: string, fill: { tokens: bigint; usd: bigint; liquidity: boolean }): Promise<string>;
  /** Someone sends `amount` of the token (or of USDC) to the token's pair, without syncing it. */
  donate(token: string, side: 'tokens' | 'usd', amount: bigint): Promise<void>;
  /** Takes the router's code away: what a chain that is not the books' has there. */
  removeRouterCode(): Promise<void>;
}

const network = TESTNET;
const T = 10n ** 18n;
const USD = 10n ** 6n;
const BURN = '0x000000000000000000000000000000000000dEaD';
const ZERO = '0x0000000000000000000000000000000000000000';
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
      const status = async () => {
        const s = await h.dex.status(network, prepared.txHash, prepared.rawTx);
        return s === 'pending' ? null : s;
      };
      return (await pollUntil(status)) ?? 'pending';
    }

    /** Seeds `token`'s pool as graduation does: the seeder approved for both sides, then seedPool. */
    async function seed(h: DexRouterHarness, token: string) {
      expect(await mined(h, await h.dex.prepareApprove(network, token, h.dex.seeder(network), SEED.tokens))).toBe('confirmed');
      expect(await mined(h, await h.dex.prepareApprove(network, h.dex.usdc(network), h.dex.seeder(network), SEED.usd))).toBe('confirmed');
      const tx = await h.dex.prepareSeedPool(network, { token, tokenAmount: SEED.tokens, usdAmount: SEED.usd, lockTo: BURN });
      expect(await mined(h, tx)).toBe('confirmed');
      return tx;
    }

    /** A token with its pool seeded as graduation seeds it. */
    async function pooled(h: DexRouterHarness) {
      const token = await h.newToken();
      await seed(h, token);
      return token;
    }

    async function approveUsd(h: DexRouterHarness, amount: bigint) {
      expect(await mined(h, await h.dex.prepareApprove(network, h.dex.usdc(network), h.dex.router(network), amount))).toBe('confirmed');
    }

    /** Custody's buy of `token` with `usdIn` USDC on its pool, approved and signed (not sent); its deadline `deadlineIn` seconds from now. */
    async function buySwap(h: DexRouterHarness, token: string, usdIn: bigint, amountOutMin: bigint, deadlineIn = 600n) {
      await approveUsd(h, usdIn);
      return h.dex.prepareSwap(network, {
        tokenIn: h.dex.usdc(network),
        tokenOut: token,
        amountIn: usdIn,
        amountOutMin,
        to: h.dex.custody(network),
        deadline: (await h.now()) + deadlineIn,
      });
    }

    /** What an LP position is worth in USD at the pool's price now (the pool's USD side counts twice). */
    async function lpValue(h: DexRouterHarness, token: string, holder: string) {
      const pool = (await h.dex.reserves(network, token))!;
      const [burned, locked, mine] = await Promise.all([BURN, ZERO, holder].map((a) => h.dex.balanceOf(network, pool.pair, a)));
      return (2n * pool.usd * mine!) / (burned! + locked! + mine!);
    }

    it('knows no pair for a token that has none', async () => {
      const h = await make();
      const token = await h.newToken();
      expect(h.dex.supports(network)).toBe(true);
      expect(await h.dex.pairOf(network, token)).toBeNull();
      expect(await h.dex.reserves(network, token)).toBeNull();
    });

    it('approves the router or the seeder for exactly the amount asked', async () => {
      const h = await make();
      const token = await h.newToken();
      expect(await mined(h, await h.dex.prepareApprove(network, token, h.dex.router(network), 123n))).toBe('confirmed');
      expect(await mined(h, await h.dex.prepareApprove(network, token, h.dex.seeder(network), 456n))).toBe('confirmed');
      expect(await h.dex.allowance(network, token, h.dex.router(network))).toBe(123n);
      expect(await h.dex.allowance(network, token, h.dex.seeder(network))).toBe(456n);
    });

    it('seeds a new pair with exactly the amounts, LP to the burn address, once however often it is broadcast', async () => {
      const h = await make();
      const token = await h.newToken();
      const tx = await seed(h, token);
      await h.dex.broadcast(network, tx.rawTx);
      const pool = await h.dex.reserves(network, token);
      expect(pool).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
      expect(pool!.pair).toBe(await h.dex.pairOf(network, token));
      expect(await h.dex.balanceOf(network, pool!.pair, BURN)).toBe(sqrt(SEED.usd * SEED.tokens) - 1000n);
      expect(await h.dex.allowance(network, token, h.dex.seeder(network))).toBe(0n);
      expect(await h.dex.seedOutcome(network, tx.txHash)).toEqual({
        pair: pool!.pair,
        tokenReserve: SEED.tokens,
        usdReserve: SEED.usd,
        liquidity: sqrt(SEED.usd * SEED.tokens) - 1000n,
        tokensLocked: 0n,
        usdReturned: 0n,
      });
    });

    it('seeds a pair an outsider created and synced with dust: the dust is absorbed, the price is the target to the unit', async () => {
      const h = await make();
      const token = await h.newToken();
      await h.fillPair(token, { tokens: 1n, usd: 1n, liquidity: false });
      const tx = await seed(h, token);
      const plan = planPoolSeed({ tokens: 1n, usd: 1n }, SEED);
      const pool = (await h.dex.reserves(network, token))!;
      expect(pool).toMatchObject(plan.after);
      // The price the pool now quotes is the target's to within one unit of USD on its whole side.
      expect(pool.usd * SEED.tokens - SEED.usd * pool.tokens).toBeLessThan(SEED.tokens);
      expect(await h.dex.seedOutcome(network, tx.txHash)).toMatchObject({ tokenReserve: pool.tokens, usdReserve: pool.usd, usdReturned: plan.usdReturned });
      expect(plan.usdReturned).toBe(1n); // the outsider's 1 unit stands in for one of ours
    });

    for (const [name, fill] of [
      ['ten times cheaper', { tokens: 1_000_000n * T, usd: 40n * USD }],
      ['ten times dearer', { tokens: 10_000n * T, usd: 40n * USD }],
    ] as const) {
      it(`seeds a pair an outsider filled with liquidity at another price (${name}): moved to the target, their LP worth less than they put in`, async () => {
        const h = await make();
        const token = await h.newToken();
        const outsider = await h.fillPair(token, { ...fill, liquidity: true });
        const tx = await seed(h, token);
        const outcome = (await h.dex.seedOutcome(network, tx.txHash))!;
        const pool = (await h.dex.reserves(network, token))!;
        expect({ tokens: outcome.tokenReserve, usd: outcome.usdReserve }).toEqual({ tokens: pool.tokens, usd: pool.usd });
        // At the target price to a part in a million (the correcting swap pays the pair's 0.3 %
        // fee, which the deposit's rounding cannot take back exactly).
        const target = (SEED.usd * 10n ** 18n) / SEED.tokens;
        const price = (pool.usd * 10n ** 18n) / pool.tokens;
        expect(price > target ? price - target : target - price).toBeLessThanOrEqual(target / 1_000_000n);
        // What the outsider put in, valued at the target price, is more than their LP is worth now.
        const putIn = fill.usd + (fill.tokens * SEED.usd) / SEED.tokens;
        expect(await lpValue(h, token, outsider)).toBeLessThan(putIn);
        // Nothing of ours left the pool's way: every token and USD went in, or back to custody.
        expect(outcome.tokensLocked).toBe(planPoolSeed({ tokens: fill.tokens, usd: fill.usd }, SEED).tokensLocked);
      });
    }

    it('swaps USDC for tokens at exactly getAmountOut, and tokens back for USDC', async () => {
      const h = await make();
      const token = await pooled(h);
      const usdIn = 1_234_567n;
      const expected = getAmountOut(usdIn, SEED.usd, SEED.tokens);
      const buy = await buySwap(h, token, usdIn, expected);
      expect(await mined(h, buy)).toBe('confirmed');
      const bought = { tokenIn: h.dex.usdc(network), tokenOut: token };
      expect(await h.dex.swapOutcome(network, buy.txHash, bought)).toEqual({ amountIn: usdIn, amountOut: expected });
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd + usdIn, tokens: SEED.tokens - expected });

      const usdBack = getAmountOut(expected, SEED.tokens - expected, SEED.usd + usdIn);
      await mined(h, await h.dex.prepareApprove(network, token, h.dex.router(network), expected));
      const sell = await h.dex.prepareSwap(network, {
        tokenIn: token,
        tokenOut: h.dex.usdc(network),
        amountIn: expected,
        amountOutMin: usdBack,
        to: h.dex.custody(network),
        deadline: (await h.now()) + 600n,
      });
      expect(await mined(h, sell)).toBe('confirmed');
      expect(await h.dex.swapOutcome(network, sell.txHash, { tokenIn: token, tokenOut: h.dex.usdc(network) })).toEqual({ amountIn: expected, amountOut: usdBack });
    });

    it('a swap through a router without code is mined as a success that does nothing: no-effect, never confirmed', async () => {
      const h = await make();
      const token = await pooled(h);
      const usdIn = 1_000_000n;
      const buy = await buySwap(h, token, usdIn, getAmountOut(usdIn, SEED.usd, SEED.tokens));
      await h.removeRouterCode();
      expect(await mined(h, buy)).toBe('no-effect');
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
    });

    it('reports a swap’s amounts on its own tokens’ sides, whatever of the other token sits unsynced in the pair', async () => {
      const h = await make();
      const token = await pooled(h);
      // Someone sends tokens to the pair without syncing it: the pair's Swap event counts them as
      // tokens in, beside the USDC the buy swaps in.
      await h.donate(token, 'tokens', 1_000n * T);
      const usdIn = 2n * USD;
      const expected = getAmountOut(usdIn, SEED.usd, SEED.tokens);
      const buy = await buySwap(h, token, usdIn, expected);
      expect(await mined(h, buy)).toBe('confirmed');
      expect(await h.dex.swapOutcome(network, buy.txHash, { tokenIn: h.dex.usdc(network), tokenOut: token })).toEqual({ amountIn: usdIn, amountOut: expected });
    });

    it('reverts a swap that would give less than amountOutMin, e.g. after someone else moved the pool; nothing moves', async () => {
      const h = await make();
      const token = await pooled(h);
      const usdIn = 5n * USD;
      const quoted = getAmountOut(usdIn, SEED.usd, SEED.tokens);
      await h.tradeDirectly(token, 1_000n * USD);
      const moved = await h.dex.reserves(network, token);
      const swap = await buySwap(h, token, usdIn, quoted);
      expect(await mined(h, swap)).toBe('reverted');
      expect(await h.dex.swapOutcome(network, swap.txHash, { tokenIn: h.dex.usdc(network), tokenOut: token })).toBeNull();
      expect(await h.dex.reserves(network, token)).toEqual(moved);
    });

    it('reverts a swap past its deadline', async () => {
      const h = await make();
      const token = await pooled(h);
      const swap = await buySwap(h, token, USD, 0n, -10n);
      expect(await mined(h, swap)).toBe('reverted');
      expect(await h.dex.reserves(network, token)).toMatchObject({ usd: SEED.usd, tokens: SEED.tokens });
    });
  });
}
