import { ServiceUnavailable, ValidationError } from '../../../domain/errors.js';
import { poolBuyWithUsd, poolCostForTokens, poolSell } from '../../../domain/pool.js';
import type { DexRouter } from '../../../ports/dex-router.js';
import type { BuyPriceRequest, PriceQuote, SellPriceRequest, TradeQuoter } from '../../../ports/trade-quoter.js';

/**
 * A graduated token's Uniswap v2 pool as a trade quoter (docs/api.md "Graduation and the Uniswap v2 pool", docs/pricing.md): the pair's reserves read
 * now (through the DexRouter, i.e. viem on a real chain), the pair's 0.3 % fee and integer math
 * exactly as UniswapV2Library computes them, and the service's fee on top as on the curve.
 * Buy: usdAmount is the gross USD paid (our fee included), tokens what the swap yields for the
 * rest. Sell: usdAmount is what the swap yields less our fee.
 */
export class UniswapV2TradeQuoter implements TradeQuoter {
  readonly name = 'uniswap-v2';

  constructor(private readonly dex: DexRouter) {}

  async price(request: BuyPriceRequest | SellPriceRequest): Promise<PriceQuote> {
    if (!request.token) throw new Error('a pool quote needs the token on chain');
    let reserves;
    try {
      reserves = await this.dex.reserves(request.token.network, request.token.address);
    } catch (e) {
      throw new ServiceUnavailable('The pool could not be read; try again shortly.', 5, undefined, { cause: e });
    }
    if (!reserves) throw new ServiceUnavailable('The pool has no liquidity yet; try again shortly.', 5);
    const feeBps = request.params.feeBps;
    if (request.side === 'sell') {
      const q = poolSell(reserves, request.tokens, feeBps);
      return { provider: this.name, usdAmount: q.usdOut, tokens: q.tokensIn, feeUsd: q.feeUsd };
    }
    const gross =
      request.usdAmount ?? (request.tokens !== undefined ? poolCostForTokens(reserves, request.tokens, feeBps) : undefined);
    if (gross === undefined) throw ValidationError.of('usdAmount', 'give usdAmount or tokens');
    const q = poolBuyWithUsd(reserves, gross, feeBps);
    return { provider: this.name, usdAmount: q.grossUsd, tokens: q.tokensOut, feeUsd: q.feeUsd };
  }
}
