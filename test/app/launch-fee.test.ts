/**
 * The anti-snipe launch fee (docs/api.md "Fees and earnings"): from 50 % at creation down to the
 * base fee over 20 s, charged at the moment a trade is applied — never more than it was priced
 * at — shared like any fee, and not charged on the creator's dev buy.
 */
import { describe, expect, it } from 'vitest';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createQuote } from '../../src/app/trading/create-quote.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { DEFAULT_CURVE_PARAMS, initialCurveState, quoteBuyWithUsd } from '../../src/domain/curve.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { pricingParams, validateTokenMetadata } from '../../src/domain/token.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';

const launchFee = { startBps: 5_000n, decayMs: 20_000n };

async function setup(initialBuyUsd?: bigint) {
  const deps = makeDeps({ launchFee });
  const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Sniped', symbol: 'SNIP' }), creator: WALLET_A, network: TESTNET, initialBuyUsd: initialBuyUsd ?? null });
  return { deps, token };
}

describe('the launch fee', () => {
  it('is shown on the token: from 5000 bps at creation down to the base fee 20 s later', async () => {
    const { deps, token } = await setup();
    expect(token.launchFee).toEqual({ startBps: 5000, endsAt: new Date(deps.clock.now().getTime() + 20_000).toISOString() });
    expect(token.curve.feeBps).toBe(100);
  });

  it('a buy in the first second pays 50 %, half-way 25.5 %, after 20 s the base 1 % — to the unit', async () => {
    for (const [afterMs, bps] of [
      [0, 5_000n],
      [10_000, 2_550n],
      [20_000, 100n],
    ] as const) {
      const { deps, token } = await setup();
      deps.clock.advance(afterMs);
      const plan = await planBuy(deps, { kind: 'usd', tokenId: token.tokenId, usdAmount: parseUsd('10') }, TESTNET);
      const bought = await buyToken(deps, { plan, buyer: WALLET_B, network: TESTNET });
      const expected = quoteBuyWithUsd({ ...DEFAULT_CURVE_PARAMS, feeBps: bps }, initialCurveState(DEFAULT_CURVE_PARAMS), parseUsd('10'));
      expect({ afterMs, fee: parseUsd(bought.trade.feeUsd), tokens: bought.tokensReceived }).toEqual({
        afterMs,
        fee: expected.feeUsd,
        tokens: (await import('../../src/domain/money.js')).formatTokens(expected.tokensOut),
      });
    }
  });

  it('a trade priced in the launch window and applied later is charged the lower fee then, never more', async () => {
    const { deps, token } = await setup();
    const quote = await createQuote(deps, { tokenId: token.tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 0n });
    expect(parseUsd(quote.feeUsd)).toBe(parseUsd('5'));
    const plan = await planBuy(deps, { kind: 'usd', tokenId: token.tokenId, usdAmount: parseUsd('10'), minTokensOut: (await import('../../src/domain/money.js')).parseTokens(quote.tokens) }, TESTNET);
    deps.clock.advance(5_000);
    const bought = await buyToken(deps, { plan, buyer: WALLET_B, network: TESTNET });
    expect(parseUsd(bought.trade.feeUsd)).toBe(parseUsd('3.775')); // 100 + 4900 × 15/20 = 3775 bps at 5 s
    expect(Number(bought.tokensReceived)).toBeGreaterThan(Number(quote.tokens));
    // The extra fee is shared like any fee: the creator earns half of it.
    expect([...deps.uow.db.earnings.values()].map((e) => ({ role: e.role, amount: e.amount }))).toEqual([{ role: 'creator', amount: 1_887_500n }]);
  });

  it('token_buy_tokens: a price held for one wallet is never offered to another, and no 402 is above the live cost', async () => {
    const { deps, token } = await setup();
    const tokens = parseTokens('100000');
    const ask = (wallet?: string, phase: 'ask' | 'price' = 'ask') => planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens }, TESTNET, phase, wallet);
    /** What the live curve asks now: the smallest gross that buys at least `tokens` at the fee in force. */
    const live = async () => {
      const t = (await deps.uow.run((s) => s.tokens.get(token.tokenId)))!;
      const gross = (await ask('0x00000000000000000000000000000000000f4e5e')).grossUsd; // a wallet that never asked
      const params = pricingParams(t, deps.clock.now());
      expect(quoteBuyWithUsd(params, t.curve, gross).tokensOut).toBeGreaterThanOrEqual(tokens);
      expect(quoteBuyWithUsd(params, t.curve, gross - 1n).tokensOut).toBeLessThan(tokens);
      return gross;
    };
    const first = await ask(WALLET_A);
    const anonymous = await ask();
    deps.clock.advance(10_000); // the launch fee halved meanwhile
    const now = await live();
    expect(now).toBeLessThan(first.grossUsd);
    // Another wallet, or another ask naming none, is asked the live cost, not the held one.
    expect((await ask(WALLET_B)).grossUsd).toBe(now);
    expect((await ask()).grossUsd).toBe(now);
    // The wallet that was asked pays what it was offered: its paid retry sees its own price …
    expect((await ask(WALLET_A, 'price')).grossUsd).toBe(first.grossUsd);
    // … and a 402 it asks for again is the live cost (a payment for the old one is then refused).
    expect((await ask(WALLET_A)).grossUsd).toBe(now);
    expect(anonymous.grossUsd).toBe(first.grossUsd);
  });

  it('token_buy_tokens: a payer that asked without naming itself pays the price offered to that ask', async () => {
    const { deps, token } = await setup();
    const tokens = parseTokens('100000');
    const offered = await planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens }, TESTNET, 'ask');
    deps.clock.advance(3_000);
    const paying = await planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens }, TESTNET, 'price', WALLET_B);
    expect(paying.grossUsd).toBe(offered.grossUsd);
    // Once taken, it is that payer's own: the claim's second look sees it even if the unnamed ask is priced again.
    await planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens }, TESTNET, 'ask');
    expect((await planBuy(deps, { kind: 'tokens', tokenId: token.tokenId, tokens }, TESTNET, 'price', WALLET_B)).grossUsd).toBe(offered.grossUsd);
  });

  it('the creator’s dev buy is charged the base fee, in the first second too', async () => {
    const { token } = await setup(parseUsd('10'));
    expect(token.initialBuy).toMatchObject({ usdSpent: '10', feeUsd: '0.1' });
  });

  it('LAUNCH_FEE_DECAY_SECONDS=0 (or a start at the base fee) is no launch fee', async () => {
    for (const off of [{ startBps: 5_000n, decayMs: 0n }, { startBps: 100n, decayMs: 20_000n }]) {
      const deps = makeDeps({ launchFee: off });
      const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Plain', symbol: 'PLN' }), creator: WALLET_A, network: TESTNET });
      expect(token.launchFee).toBeNull();
    }
  });
});
