/**
 * The free reads of the catalogue (docs/api.md "Free endpoints", docs/agents.md): a data table,
 * one entry per operation. Tools are listed in this order.
 */
import { getAddress } from 'viem';
import { z } from 'zod';
import { parseTokens, parseUsd } from '../../domain/money.js';
import { cancelPledgeInput, pledgeAuthorizationQuery } from '../schemas.js';
import { pledgeAuthorizationOutput, pledgeOutput, raiseOutput } from '../output-schemas.js';
import { getRaise } from '../use-cases/get-raise.js';
import { cancelPledge, pledgeAuthorization } from '../use-cases/pledge.js';
import { candlesQuery, commentIdSchema, commentsQuery, creatorsQuery, holdersQuery, listTokensQuery, positionsQuery, quoteQuery, sellAuthorizationQuery, tokenIdSchema, tradesQuery, walletSchema } from '../schemas.js';
import { candlesOutput, commentOutput, commentPageOutput, creatorsOutput, deliveryOutput, earningsOutput, holdersOutput, paymentOutput, payoutOutput, positionsOutput, pricesOutput, quoteOutput, sellAuthorizationOutput, statsOutput, tokenOutput, tokenPageOutput, tradePageOutput } from '../output-schemas.js';
import { createQuote } from '../use-cases/create-quote.js';
import { getWalletEarnings, listCreators } from '../use-cases/earnings.js';
import { hideComment, listComments } from '../use-cases/comments.js';
import { getCandles } from '../use-cases/get-candles.js';
import { getDelivery } from '../use-cases/get-delivery.js';
import { getPayment } from '../use-cases/get-payment.js';
import { getPayout } from '../use-cases/get-payout.js';
import { getPrices } from '../use-cases/get-prices.js';
import { getStats } from '../use-cases/get-stats.js';
import { getToken, keptToken } from '../use-cases/get-token.js';
import { listHolders } from '../use-cases/list-holders.js';
import { detectWalletNetwork, listPositions } from '../use-cases/list-positions.js';
import { listTokens } from '../use-cases/list-tokens.js';
import { listTrades } from '../use-cases/list-trades.js';
import { sellAuthorization } from '../use-cases/sell-authorization.js';
import { orderReads } from '../orders/order-catalogue.js';
import { read } from './operation.js';
import { READ_PATHS } from './read-paths.js';

const tokenField = { tokenId: tokenIdSchema };
const id = (prefix: string, what: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be a ${what} id (${prefix}_ + 26-character ULID)`);
const token = { id: 'tokenId' };

export function reads() {
  return [
    read({
      operation: 'list_tokens',
      tool: { name: 'list_tokens', title: 'List tokens' },
      description:
        'List launched tokens, newest first (or by marketCap / volume24h), filtered by network, state, creator or a name/symbol prefix `q`. Pages with `cursor` (the previous answer\'s nextCursor).',
      summary: 'tokens, newest first; filters network, state, creator, q; sort created | marketCap | volume24h; cursor pages',
      http: { path: READ_PATHS.list_tokens },
      inputSchema: listTokensQuery,
      outputSchema: tokenPageOutput,
      run: (deps, q) => listTokens(deps, q),
    }),
    read({
      operation: 'get_token',
      tool: { name: 'get_token', title: 'Get a token' },
      description: 'One token: its curve, spot price (USD), market cap, 24-hour volume, holders, on-chain address and deployment, and pool once graduated.',
      summary: 'one token: curve, spot price, market cap, volume, holders, contract and pool',
      http: { path: READ_PATHS.get_token, params: token },
      inputSchema: z.strictObject({ tokenId: tokenIdSchema }),
      outputSchema: tokenOutput,
      run: (deps, q, call) => getToken(deps, q.tokenId, { fresh: call.fresh ?? false }),
      kept: (deps, q) => keptToken(deps, q.tokenId),
    }),
    read({
      operation: 'list_positions',
      tool: { name: 'list_positions', title: "List a wallet's positions" },
      description:
        "A wallet's positions: balance, cost basis, realized and unrealized PnL in USD, and the on-chain balance, with totals. `network` defaults to the wallet's own (chosen from its history: Base mainnet history → eip155:8453, else eip155:84532).",
      summary: "a wallet's positions with cost basis, PnL and on-chain balance",
      http: { path: READ_PATHS.list_positions, walletProof: 'wallet' },
      inputSchema: positionsQuery.extend({ wallet: walletSchema.meta({ description: 'the wallet (0x address)' }) }),
      outputSchema: positionsOutput,
      run: async (deps, q) => {
        const wallet = getAddress(q.wallet);
        const network = q.network ?? (await detectWalletNetwork(deps, wallet));
        return listPositions(deps, { wallet, network, includeZero: q.includeZero });
      },
    }),
    read({
      operation: 'quote',
      tool: { name: 'get_quote', title: 'Quote a trade' }, // it holds the quote for 60 s, and nothing else: nothing is charged, nothing moves
      description:
        'Price a buy (by usdAmount or tokens) or a sell (by tokens) at the current curve or pool, fee included, with minTokensOut/minUsdOut after slippageBps. The quote is held 60 s: token_buy_quote executes it at exactly its usdAmount.',
      summary: 'a quote held 60 s (token_buy_quote executes it)',
      http: { path: READ_PATHS.quote },
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
    read({
      operation: 'prices',
      tool: { name: 'get_prices', title: 'Payment asset prices' },
      description: 'USD price of each payment asset (USDC, EURC) per network, the sources asked and their answers: what a EURC payment is priced at.',
      summary: 'USD prices of the payment assets and their sources',
      http: { path: READ_PATHS.prices },
      inputSchema: z.strictObject({}),
      outputSchema: pricesOutput,
      run: (deps) => getPrices(deps),
    }),
    read({
      operation: 'list_trades',
      tool: { name: 'list_trades', title: "List a token's trades" },
      description: "A token's trades, newest first: side, USD amount, fee, tokens, average price, venue (curve or uniswap-v2).",
      summary: 'trades, newest first',
      http: { path: READ_PATHS.list_trades, params: token },
      inputSchema: tradesQuery.extend(tokenField),
      outputSchema: tradePageOutput,
      run: (deps, q) => listTrades(deps, q.tokenId, { limit: q.limit, cursor: q.cursor }),
    }),
    read({
      operation: 'candles',
      tool: { name: 'get_candles', title: 'Price candles' },
      description: "OHLCV candles of a token's trades (interval 1m, 5m, 1h or 1d; default the last 100 intervals).",
      summary: 'OHLCV candles',
      http: { path: READ_PATHS.candles, params: token },
      inputSchema: candlesQuery.extend(tokenField),
      outputSchema: candlesOutput,
      run: (deps, q) =>
        getCandles(deps, q.tokenId, { interval: q.interval, ...(q.from ? { from: new Date(q.from) } : {}), ...(q.to ? { to: new Date(q.to) } : {}) }),
    }),
    read({
      operation: 'holders',
      tool: { name: 'list_holders', title: "List a token's holders" },
      description: "A token's top holders with their balance and share of the tokens in circulation.",
      summary: 'top holders',
      http: { path: READ_PATHS.holders, params: token },
      inputSchema: holdersQuery.extend(tokenField),
      outputSchema: holdersOutput,
      run: (deps, q) => listHolders(deps, q.tokenId, q.limit),
    }),
    read({
      operation: 'list_comments',
      tool: { name: 'list_comments', title: "List a token's comments" },
      description:
        "A token's comment thread, newest first, each comment with its replies (oldest first): its author (the wallet that paid for it), the author's holding and share of the tokens in circulation, and badges (creator, top_holder). A comment the creator hid keeps its place with `hidden: true` and `text: null`. Pages with `cursor`.",
      summary: 'comments, newest first, with replies, holdings and badges; cursor pages',
      http: { path: READ_PATHS.list_comments, params: token },
      inputSchema: commentsQuery.extend(tokenField),
      outputSchema: commentPageOutput,
      run: (deps, q) => listComments(deps, q.tokenId, { limit: q.limit, cursor: q.cursor }),
    }),
    read({
      operation: 'hide_comment',
      description:
        "The token's creator hides a comment of its token, free: the request proves the creator's wallet with a SIGN-IN-WITH-X header. The comment stays listed, its text withheld. Hiding a hidden comment answers it as it is.",
      summary: "the token's creator hides a comment (SIGN-IN-WITH-X proof required)",
      http: { path: READ_PATHS.hide_comment, params: { ...token, commentId: 'commentId' }, method: 'post', proofRequired: true, errors: [403] },
      inputSchema: z.strictObject({ ...tokenField, commentId: commentIdSchema }),
      outputSchema: commentOutput,
      run: (deps, q, call) => hideComment(deps, { tokenId: q.tokenId, commentId: q.commentId, wallet: getAddress(call.provenWallet!) }),
    }),
    read({
      operation: 'get_payment',
      tool: { name: 'get_payment', title: 'Get a payment' },
      description:
        'The state of a payment by paymentId: APPLIED (done), REFUNDED (paid back), REJECTED or FAILED (nothing charged), or still VERIFIED/SETTLING/SETTLED. Call it after a paid tool answered status "pending".',
      summary: 'the state of a payment (after a 202 "pending")',
      http: { path: READ_PATHS.get_payment, lookup: true },
      inputSchema: z.strictObject({ paymentId: id('pay', 'payment') }),
      outputSchema: paymentOutput,
      run: (deps, q) => getPayment(deps, q.paymentId),
    }),
    read({
      operation: 'get_delivery',
      tool: { name: 'get_delivery', title: 'Get a delivery' },
      description: "Where a buy's tokens are on their way to the buyer's wallet (PENDING, SENT, CONFIRMED), by the deliveryId a buy answered.",
      summary: "a buy's tokens on their way to the wallet",
      http: { path: READ_PATHS.get_delivery, lookup: true },
      inputSchema: z.strictObject({ deliveryId: id('dlv', 'delivery') }),
      outputSchema: deliveryOutput,
      run: (deps, q) => getDelivery(deps, q.deliveryId),
    }),
    read({
      operation: 'get_payout',
      tool: { name: 'get_payout', title: 'Get a payout' },
      description: 'A USDC payout the service owes a wallet (sell proceeds, a refund, fee shares): its amount, state and transaction, by the payoutId a sell answered.',
      summary: 'sell proceeds, refunds and fee shares paid in USDC',
      http: { path: READ_PATHS.get_payout, lookup: true },
      inputSchema: z.strictObject({ payoutId: id('pout', 'payout') }),
      outputSchema: payoutOutput,
      run: (deps, q) => getPayout(deps, q.payoutId),
    }),
    read({
      operation: 'sell_authorization',
      tool: { name: 'prepare_sell', title: 'Prepare a sell' },
      description:
        "Step 1 of a sell: the EIP-712 typed data `wallet` signs so custody may pull `tokens` of the token (valid 10 minutes), and the tokenAuthorization to send to token_sell with the `signature` added. Sign typedData with the wallet's key (eth_signTypedData_v4).",
      summary: 'the EIP-712 typed data a seller signs before token_sell',
      http: { path: READ_PATHS.sell_authorization, params: token, errors: [409] },
      inputSchema: sellAuthorizationQuery.extend(tokenField),
      outputSchema: sellAuthorizationOutput,
      run: (deps, q) => sellAuthorization(deps, { tokenId: q.tokenId, wallet: getAddress(q.wallet), tokens: parseTokens(q.tokens, 'tokens') }),
    }),
    read({
      operation: 'get_raise',
      tool: { name: 'get_raise', title: "A fair launch's raise" },
      description:
        "A fair launch's raise (a token created with launch.mode fair): state RAISING (settling once it ended), FILLED or FAILED, the goal, the end, the total pledged and its progress, pledges by wallet and each pledge — with its tokens once FILLED, all bought at one price.",
      summary: "a fair launch's raise: state, goal, pledged, pledges and their tokens",
      http: { path: READ_PATHS.get_raise, params: token },
      inputSchema: z.strictObject(tokenField),
      outputSchema: raiseOutput,
      run: (deps, q) => getRaise(deps, q.tokenId),
    }),
    read({
      operation: 'pledge_authorization',
      tool: { name: 'prepare_pledge', title: 'Prepare a pledge' },
      description:
        "Step 1 of a pledge to a fair launch: the EIP-712 typed data `wallet` signs — a USDC ReceiveWithAuthorization of exactly usdAmount to the service's custody, valid a day past the raise's end, with a fresh nonce — and the authorization to send to token_pledge with the `signature` added. Nothing moves unless the raise fills.",
      summary: 'the EIP-712 typed data a pledger signs before token_pledge',
      http: { path: READ_PATHS.pledge_authorization, params: token, errors: [409] },
      inputSchema: pledgeAuthorizationQuery.extend(tokenField),
      outputSchema: pledgeAuthorizationOutput,
      run: (deps, q) => pledgeAuthorization(deps, { tokenId: q.tokenId, wallet: getAddress(q.wallet), usdAmount: parseUsd(q.usdAmount, 'usdAmount') }),
    }),
    read({
      operation: 'cancel_pledge',
      tool: { name: 'cancel_pledge', title: 'Cancel a pledge', readOnly: false },
      description:
        'Cancel a pledge before its raise ends, free: `signature` is the pledger\'s personal_sign (EIP-191) of the text "Cancel pledge <pledgeId>" (over HTTP, a SIGN-IN-WITH-X proof of the pledger may stand instead). A cancelled pledge is never collected.',
      summary: 'cancel a pledge until its raise ends (signed by the pledger)',
      http: { path: READ_PATHS.cancel_pledge, method: 'post', errors: [403, 409] },
      inputSchema: cancelPledgeInput,
      outputSchema: pledgeOutput,
      run: (deps, q, call) => cancelPledge(deps, { pledgeId: q.pledgeId, signature: q.signature, provenWallet: call.provenWallet }),
    }),
    read({
      operation: 'earnings',
      description: "A wallet's fee shares as creator or referrer: accrued, paid (confirmed on chain) and pending, by token and role.",
      summary: "a wallet's fee shares as creator or referrer",
      http: { path: READ_PATHS.earnings },
      inputSchema: z.strictObject({ address: walletSchema }),
      outputSchema: earningsOutput,
      run: (deps, q) => getWalletEarnings(deps, getAddress(q.address)),
    }),
    read({
      operation: 'creators',
      description: 'Creators ranked by what they earned.',
      summary: 'creators ranked by what they earned',
      http: { path: READ_PATHS.creators },
      inputSchema: creatorsQuery,
      outputSchema: creatorsOutput,
      run: (deps, q) => listCreators(deps, q.limit),
    }),
    read({
      operation: 'stats',
      description: 'Totals per network: tokens, trades, volume and fees.',
      summary: 'totals per network',
      http: { path: READ_PATHS.stats },
      inputSchema: z.strictObject({}),
      outputSchema: statsOutput,
      run: (deps) => getStats(deps),
    }),
    ...orderReads(),
  ];
}
