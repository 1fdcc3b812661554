/**
 * Trading's entries of the catalogue (docs/api.md "Paid endpoints"): the three buys and the sell (paid); positions, quotes and the sell's typed data (free).
 */
import { checksummed } from '../kit/address.js';
import { z } from 'zod';
import { parseTokens, parseUsd } from '../../domain/money.js';
import { authorizationFromText } from '../../domain/token-authorization.js';
import { swapRecorded } from '../custody/index.js';
import { type Entrypoint, type Prepared, fixed, opt, referrerOf } from '../kit/catalogue/entrypoint.js';
import { read } from '../kit/catalogue/operation.js';
import { token, tokenField } from '../kit/catalogue/read-fields.js';
import { networkSchema, parseWith, walletSchema } from '../kit/schemas.js';
import { type BuyPlan, type BuyRequest, buyToken, planBuy, recordedBuyPlan } from './buy-token.js';
import { checkReferrer } from './check-referrer.js';
import { createQuote } from './create-quote.js';
import { detectWalletNetwork, listPositions } from './list-positions.js';
import type { DeployedToken } from './load-token.js';
import { buyOutput, buyQuoteInput, buyTokensInput, buyUsdInput, positionsOutput, positionsQuery, quoteOutput, quoteQuery, sellAuthorizationOutput, sellAuthorizationQuery, sellInput, sellOutput } from './schemas.js';
import { sellAuthorization } from './sell-authorization.js';
import { type SellRequest, checkSell, pulledTokens, sellToken } from './sell-token.js';
import { TRADING_EXAMPLES } from './examples.js';
import { walletBalance, walletBalanceOutput } from './wallet-balance.js';

type BuyPrepared = Prepared & { plan: BuyPlan };

export function buyEntrypoint(
  name: keyof typeof TRADING_EXAMPLES,
  tool: Entrypoint['tool'],
  description: string,
  rule: string,
  inputSchema: z.ZodType,
  toRequest: (raw: Record<string, string>) => BuyRequest,
): Entrypoint<BuyRequest, BuyPrepared> {
  return {
    kind: 'paid',
    name,
    example: TRADING_EXAMPLES[name],
    operation: 'buy_token',
    description,
    tool,
    priceRule: { kind: 'computed', rule },
    price: () => rule,
    successStatus: 200,
    // A quote lapses: 410 QUOTE_EXPIRED.
    ...(name === 'token_buy_quote' ? { errors: [410] } : {}),
    inputSchema,
    outputSchema: buyOutput,
    parse: (raw) => {
      const v = parseWith(inputSchema, raw) as Record<string, string>;
      return { ...toRequest(v), referrer: referrerOf(v) };
    },
    async prepare(deps, input, caller, phase) {
      // A settled buy whose swap custody recorded is that swap: nothing is checked again (decision 0061).
      const recorded = phase === 'apply' && caller?.paymentId ? await recordedBuyPlan(deps, caller.paymentId, caller.network) : null;
      if (recorded) return { amount: recorded.grossUsd, network: recorded.network, plan: recorded, done: true };
      await checkReferrer(deps, 'referrer', input.referrer);
      const plan = await planBuy(deps, input, caller?.network, phase, caller?.wallet, caller?.paidAt);
      return { amount: plan.grossUsd, network: plan.network, plan };
    },
    execute: (deps, input, prepared, caller, paid) =>
      buyToken(deps, { plan: prepared.plan, buyer: caller.wallet, network: caller.network, referrer: input.referrer ?? null }, paid),
  };
}

/** The paid entries of this room, by name (the assembly in ../catalogue.ts orders them). */
export function tradingEntrypoints() {
  const sell: Entrypoint<SellRequest, Prepared & { token: DeployedToken }> = {
    kind: 'paid',
    name: 'token_sell',
    example: TRADING_EXAMPLES.token_sell,
    operation: 'sell_token',
    tool: {
      name: 'token_sell',
      title: 'Sell tokens',
      readOnly: false,
      howTo: 'Step 2 of a sell: call prepare_sell first, sign its typedData, and pass its tokenAuthorization with the signature.',
    },
    description:
      "Sell tokens back to the curve (or, once the token graduated, through its Uniswap v2 pool): custody pulls them with the seller's signed tokenAuthorization (GET /api/tokens/:id/sell-authorization); proceeds after the fee are paid out in USDC, whatever asset pays the $0.01 fee.",
    ...fixed((settings) => settings.prices.sell),
    successStatus: 200,
    inputSchema: sellInput,
    outputSchema: sellOutput,
    parse: (raw) => {
      const v = parseWith(sellInput, raw);
      const a = v.tokenAuthorization;
      return {
        tokenId: v.tokenId,
        tokens: parseTokens(v.tokens),
        minUsdOut: opt(v.minUsdOut, parseUsd),
        authorization: authorizationFromText(a),
        referrer: referrerOf(v),
      };
    },
    async prepare(deps, input, caller, phase) {
      // A settled sell whose pool swap custody recorded is sold: only what the sell itself needs is checked (decision 0061).
      const done = phase === 'apply' && caller?.paymentId ? await swapRecorded(deps, caller.paymentId) : false;
      if (!done) await checkReferrer(deps, 'referrer', input.referrer);
      const { network, token } = await checkSell(deps, input, caller, phase);
      return { amount: deps.settings.prices.sell, network, token, ...(done ? { done: true as const } : {}) };
    },
    // The token as the rules were checked, moments before: what the pull needs of it cannot have changed.
    execute: (deps, input, prepared, caller, paid) =>
      sellToken(deps, { ...input, seller: caller.wallet, network: caller.network }, paid, prepared.token),
    takenInCustody: (deps, input, payment) => pulledTokens(deps, { network: payment.network, authorization: input.authorization }, payment.paymentId),
  };
  const buyUsd = buyEntrypoint(
    'token_buy_usd',
    { name: 'token_buy_usd', title: 'Buy for a USD amount', readOnly: false },
    'Spend exactly usdAmount (fee included: 1 %, more in a token’s first seconds — its launchFee) on the curve.',
    '= usdAmount',
    buyUsdInput,
    (v) => ({
      kind: 'usd',
      tokenId: v.tokenId!,
      usdAmount: parseUsd(v.usdAmount),
      minTokensOut: opt(v.minTokensOut, parseTokens),
    }),
  );
  const buyTokens: Entrypoint<BuyRequest, BuyPrepared> = {
    ...buyEntrypoint(
      'token_buy_tokens',
      { name: 'token_buy_tokens', title: 'Buy a number of tokens', readOnly: false },
      'Buy at least `tokens`; the price is their current cost plus fee, held 60 s for the wallet that asked. Payable by x402 `upto`: authorize up to the price plus the default slippage (or `maxUsd`), be charged the price the trade runs at.',
      '= quoted cost of tokens',
      buyTokensInput,
      (v) => ({ kind: 'tokens', tokenId: v.tokenId!, tokens: parseTokens(v.tokens), maxUsd: opt(v.maxUsd, parseUsd) }),
    ),
    // The price is a maximum (x402 `upto`): the cost plus the default slippage, never above the buyer's own maxUsd.
    upTo: (settings, input, prepared) => {
      const slipped = prepared.amount + (prepared.amount * settings.defaultSlippageBps) / 10_000n;
      const cap = input.kind === 'tokens' ? input.maxUsd : undefined;
      return cap !== undefined && cap < slipped ? cap : slipped;
    },
  };
  const buyQuote = buyEntrypoint(
    'token_buy_quote',
    { name: 'token_buy_quote', title: 'Buy at a quote', readOnly: false, howTo: 'Get the quoteId from get_quote.' },
    'Execute a quote from GET /api/quote (valid 60 s) with its minTokensOut.',
    "= the quote's usdAmount",
    buyQuoteInput,
    (v) => ({ kind: 'quote', quoteId: v.quoteId! }),
  );
  return { buyUsd, buyTokens, buyQuote, sell };
}

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function tradingReads() {
  return {
    list_positions: read({
      operation: 'list_positions',
      tool: { name: 'list_positions', title: "List a wallet's positions" },
      description:
        "A wallet's positions: balance, cost basis, realized and unrealized PnL in USD, and the on-chain balance, with totals. `network` defaults to the wallet's own (chosen from its history: Base mainnet history → eip155:8453, else eip155:84532).",
      summary: "a wallet's positions with cost basis, PnL and on-chain balance",
      http: { path: '/positions', walletProof: 'wallet' },
      inputSchema: positionsQuery.extend({ wallet: walletSchema.meta({ description: 'the wallet (0x address)' }) }),
      outputSchema: positionsOutput,
      run: async (deps, q) => {
        const wallet = checksummed(q.wallet);
        const network = q.network ?? (await detectWalletNetwork(deps, wallet));
        return listPositions(deps, { wallet, network, includeZero: q.includeZero });
      },
    }),
    quote: read({
      operation: 'quote',
      tool: { name: 'get_quote', title: 'Quote a trade' }, // it holds the quote for 60 s, and nothing else: nothing is charged, nothing moves
      description:
        'Price a buy (by usdAmount or tokens) or a sell (by tokens) at the current curve or pool, fee included, with minTokensOut/minUsdOut after slippageBps. The quote is held 60 s: token_buy_quote executes it at exactly its usdAmount.',
      summary: 'a quote held 60 s (token_buy_quote executes it)',
      // The token it names not found (404); a raising or graduated token, the curve's capacity (409).
      http: { path: '/api/quote', errors: [404, 409] },
      inputSchema: quoteQuery,
      outputSchema: quoteOutput,
      run: (deps, q) =>
        createQuote(deps, {
          tokenId: q.tokenId,
          side: q.side,
          usdAmount: q.usdAmount === undefined ? undefined : parseUsd(q.usdAmount, 'usdAmount'),
          tokens: q.tokens === undefined ? undefined : parseTokens(q.tokens, 'tokens'),
          slippageBps: BigInt(q.slippageBps),
        }),
    }),
    wallet_balance: read({
      operation: 'wallet_balance',
      tool: { name: 'get_wallet_balance', title: "A wallet's USDC and EURC" },
      description:
        "What a wallet holds on chain now of the payment assets: its USDC (what payments, limit buys and pledges draw on) and EURC. `network` defaults to the wallet's own, as for list_positions.",
      summary: "a wallet's USDC and EURC on chain",
      http: { path: '/api/wallets/:address/balance' },
      inputSchema: z.strictObject({ address: walletSchema, network: networkSchema.optional() }),
      outputSchema: walletBalanceOutput,
      run: async (deps, q) => {
        const wallet = checksummed(q.address);
        return walletBalance(deps, { wallet, network: q.network ?? (await detectWalletNetwork(deps, wallet)) });
      },
    }),
    sell_authorization: read({
      operation: 'sell_authorization',
      tool: { name: 'prepare_sell', title: 'Prepare a sell' },
      description:
        "Step 1 of a sell: the EIP-712 typed data `wallet` signs so custody may pull `tokens` of the token (valid 10 minutes), and the tokenAuthorization to send to token_sell with the `signature` added. Sign typedData with the wallet's key (eth_signTypedData_v4).",
      summary: 'the EIP-712 typed data a seller signs before token_sell',
      http: { path: '/api/tokens/:id/sell-authorization', params: token, errors: [409] },
      inputSchema: sellAuthorizationQuery.extend(tokenField),
      outputSchema: sellAuthorizationOutput,
      run: (deps, q) => sellAuthorization(deps, { tokenId: q.tokenId, wallet: checksummed(q.wallet), tokens: parseTokens(q.tokens, 'tokens') }),
    }),
  };
}
