import { describe, expect, it } from 'vitest';
import { DEFAULT_CURVE_PARAMS as P, initialCurveState, quoteBuyWithUsd } from '../../src/domain/curve.js';
import type { TradeQuoter } from '../../src/ports/trade-quoter.js';

export function tradeQuoterContract(name: string, make: () => Promise<TradeQuoter>) {
  describe(`TradeQuoter contract: ${name}`, () => {
    const s0 = initialCurveState(P);

    it('prices a buy of USD: $5 at the default curve gives 884495.291384607698648614 tokens, fee 0.05', async () => {
      const q = await (await make()).price({ side: 'buy', params: P, curve: s0, usdAmount: 5_000_000n });
      expect(q).toMatchObject({ usdAmount: 5_000_000n, tokens: 884495291384607698648614n, feeUsd: 50_000n });
      expect(q.provider).toEqual(expect.any(String));
    });

    it('prices a buy of tokens at the smallest USD that yields them', async () => {
      const tokens = 123_456n * 10n ** 18n;
      const q = await (await make()).price({ side: 'buy', params: P, curve: s0, tokens });
      expect(q.tokens).toBeGreaterThanOrEqual(tokens);
      expect(quoteBuyWithUsd(P, s0, q.usdAmount - 1n).tokensOut).toBeLessThan(tokens);
    });

    it('prices a sell: USD out after the fee', async () => {
      const after = quoteBuyWithUsd(P, s0, 5_000_000n);
      const q = await (await make()).price({ side: 'sell', params: P, curve: after.after, tokens: after.tokensOut / 2n });
      expect(q).toMatchObject({ usdAmount: 2_451_259n, tokens: after.tokensOut / 2n, feeUsd: 24_761n });
    });
  });
}
