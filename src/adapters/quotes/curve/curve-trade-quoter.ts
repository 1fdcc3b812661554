import { quoteBuyForTokens, quoteBuyWithUsd, quoteSell } from '../../../domain/curve.js';
import { ValidationError } from '../../../domain/errors.js';
import type { BuyPriceRequest, PriceQuote, TradeQuoter, SellPriceRequest } from '../../../ports/trade-quoter.js';

/**
 * The service's own curve as a trade quoter: exact, local, never rate limited.
 * Buy: usdAmount is the gross USD paid, tokens what it buys. Sell: usdAmount is paid out after the fee.
 */
export class CurveTradeQuoter implements TradeQuoter {
  readonly name = 'curve';

  async price(request: BuyPriceRequest | SellPriceRequest): Promise<PriceQuote> {
    if (request.side === 'sell') {
      const q = quoteSell(request.params, request.curve, request.tokens);
      return { provider: this.name, usdAmount: q.usdOut, tokens: q.tokensIn, feeUsd: q.feeUsd };
    }
    if (request.usdAmount !== undefined) {
      const q = quoteBuyWithUsd(request.params, request.curve, request.usdAmount);
      return { provider: this.name, usdAmount: q.grossUsd, tokens: q.tokensOut, feeUsd: q.feeUsd };
    }
    if (request.tokens !== undefined) {
      const q = quoteBuyForTokens(request.params, request.curve, request.tokens);
      return { provider: this.name, usdAmount: q.grossUsd, tokens: q.tokensOut, feeUsd: q.feeUsd };
    }
    throw ValidationError.of('usdAmount', 'give usdAmount or tokens');
  }
}
