import { ValidationError } from '../../domain/errors.js';
import { BPS_DENOMINATOR } from '../../domain/fees.js';
import { floorDiv } from '../../domain/money.js';
import type { Quote } from '../../domain/quote.js';
import { quoteView } from '../kit/views.js';
import { buyQuote, checkBuySize } from './buy-token.js';
import { loadToken } from './load-token.js';
import { venueFor, type VenueDeps } from './venues/venue-for.js';

export interface QuoteRequest {
  tokenId: string;
  side: 'buy' | 'sell';
  usdAmount?: bigint | undefined;
  tokens?: bigint | undefined;
  slippageBps: bigint;
}

/** GET /api/quote: prices a trade and stores the quote for 60 s (token_buy_quote executes it). */
export function createQuote(deps: VenueDeps, req: QuoteRequest) {
  if ((req.usdAmount === undefined) === (req.tokens === undefined)) {
    throw ValidationError.of(req.side === 'sell' ? 'tokens' : 'usdAmount', 'give exactly one of usdAmount or tokens');
  }
  if (req.side === 'sell' && req.tokens === undefined) throw ValidationError.of('tokens', 'a sell quote needs tokens');
  if (req.slippageBps < 0n || req.slippageBps > 5_000n) {
    throw ValidationError.of('slippageBps', 'must be between 0 and 5000');
  }
  const now = deps.clock.now();
  const keep = (amount: bigint) => floorDiv(amount * (BPS_DENOMINATOR - req.slippageBps), BPS_DENOMINATOR);
  return deps.uow.run(async (stores) => {
    const token = await loadToken(stores, req.tokenId);
    // The curve while ACTIVE; a graduated token's pool once it exists (docs/api.md "Graduation").
    const venue = venueFor(deps, token, req.side);
    let quote: Quote;
    if (req.side === 'buy') {
      const priced = await venue.price(token, { side: 'buy', usdAmount: req.usdAmount, tokens: req.tokens });
      checkBuySize(deps, priced.usdAmount, req.usdAmount !== undefined ? { usdAmount: req.usdAmount } : { tokens: req.tokens! });
      quote = buyQuote(deps, token, priced.usdAmount, priced.tokens, keep(priced.tokens), priced.feeUsd, req.slippageBps, now, priced.provider);
    } else {
      if (venue.name === 'curve' && req.tokens! > token.curve.tokensSold) {
        throw ValidationError.of('tokens', 'is more than all tokens of this token in circulation');
      }
      const priced = await venue.price(token, { side: 'sell', tokens: req.tokens! });
      quote = {
        ...buyQuote(deps, token, priced.usdAmount, priced.tokens, keep(priced.usdAmount), priced.feeUsd, req.slippageBps, now, priced.provider),
        side: 'sell',
      };
    }
    await stores.quotes.save(quote);
    return quoteView(quote);
  });
}
