/**
 * The service as tools an agent calls (docs/agents.md): each with a name, a description an LLM can
 * act on, and the zod schemas of its arguments and answer — the very schemas the HTTP API validates
 * with. A free tool is a read over the same use cases as the free HTTP routes; a paid tool is an
 * entrypoint of the paid catalogue (entrypoints.ts), paid through the same payment pipeline. The
 * MCP adapter serves this table; the HTTP adapter lists it in its discovery documents.
 */
import { getAddress } from 'viem';
import { z } from 'zod';
import { parseTokens, parseUsd } from '../domain/money.js';
import type { ApplicationDeps } from './application.js';
import type { AnyEntrypoint } from './entrypoints.js';
import {
  candlesOutput,
  candlesQuery,
  deliveryOutput,
  holdersOutput,
  holdersQuery,
  listTokensQuery,
  paymentOutput,
  payoutOutput,
  positionsOutput,
  positionsQuery,
  pricesOutput,
  quoteOutput,
  quoteQuery,
  sellAuthorizationOutput,
  sellAuthorizationQuery,
  tokenIdSchema,
  tokenOutput,
  tokenPageOutput,
  tradePageOutput,
  tradesQuery,
  walletSchema,
} from './schemas.js';
import { createQuote } from './use-cases/create-quote.js';
import { getCandles } from './use-cases/get-candles.js';
import { getDelivery } from './use-cases/get-delivery.js';
import { getPayment } from './use-cases/get-payment.js';
import { getPayout } from './use-cases/get-payout.js';
import { getPrices } from './use-cases/get-prices.js';
import { getToken } from './use-cases/get-token.js';
import { listHolders } from './use-cases/list-holders.js';
import { detectWalletNetwork, listPositions } from './use-cases/list-positions.js';
import { listTokens } from './use-cases/list-tokens.js';
import { listTrades } from './use-cases/list-trades.js';
import { sellAuthorization } from './use-cases/sell-authorization.js';

interface ToolBase {
  name: string;
  /** A short human title (MCP `annotations.title`). */
  title: string;
  description: string;
  /** Reads only: changes nothing anywhere (MCP `readOnlyHint`). */
  readOnly: boolean;
}

export interface FreeTool<I = unknown> extends ToolBase {
  kind: 'free';
  inputSchema: z.ZodType;
  outputSchema: z.ZodType;
  run(deps: ApplicationDeps, input: I): Promise<unknown>;
}

export interface PaidTool extends ToolBase {
  kind: 'paid';
  /** The entrypoint it pays for: its input and output schemas, price, rules and operation. */
  entrypoint: AnyEntrypoint;
  /** What it does, without how x402 pays it (for documents that explain paying once). */
  summary: string;
}

export type AgentTool = FreeTool | PaidTool;

/** A free tool of any input: the table is heterogeneous by nature. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFreeTool = FreeTool<any>;

const withToken = <S extends z.ZodObject>(s: S) => s.extend({ tokenId: tokenIdSchema });
const id = (prefix: string, what: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be a ${what} id (${prefix}_ + 26-character ULID)`);

function freeTools(): AnyFreeTool[] {
  return [
    {
      kind: 'free',
      name: 'list_tokens',
      title: 'List tokens',
      readOnly: true,
      description:
        'List launched tokens, newest first (or by marketCap / volume24h), filtered by network, state, creator or a name/symbol prefix `q`. Pages with `cursor` (the previous answer\'s nextCursor).',
      inputSchema: listTokensQuery,
      outputSchema: tokenPageOutput,
      run: (deps, q: z.output<typeof listTokensQuery>) => listTokens(deps, q),
    },
    {
      kind: 'free',
      name: 'get_token',
      title: 'Get a token',
      readOnly: true,
      description: 'One token: its curve, spot price (USD), market cap, 24-hour volume, holders, on-chain address and deployment, and pool once graduated.',
      inputSchema: z.strictObject({ tokenId: tokenIdSchema }),
      outputSchema: tokenOutput,
      run: (deps, q: { tokenId: string }) => getToken(deps, q.tokenId),
    },
    {
      kind: 'free',
      name: 'list_positions',
      title: "List a wallet's positions",
      readOnly: true,
      description:
        "A wallet's positions: balance, cost basis, realized and unrealized PnL in USD, and the on-chain balance, with totals. `network` defaults to the wallet's own (chosen from its history: Base mainnet history → eip155:8453, else eip155:84532).",
      inputSchema: positionsQuery.extend({ wallet: walletSchema.meta({ description: 'the wallet (0x address)' }) }),
      outputSchema: positionsOutput,
      run: async (deps, q: z.output<typeof positionsQuery> & { wallet: string }) => {
        const wallet = getAddress(q.wallet);
        const network = q.network ?? (await detectWalletNetwork(deps, wallet));
        return listPositions(deps, { wallet, network, includeZero: q.includeZero });
      },
    },
    {
      kind: 'free',
      name: 'get_quote',
      title: 'Quote a trade',
      // It holds the quote for 60 s, and nothing else: nothing is charged, nothing moves.
      readOnly: true,
      description:
        'Price a buy (by usdAmount or tokens) or a sell (by tokens) at the current curve or pool, fee included, with minTokensOut/minUsdOut after slippageBps. The quote is held 60 s: token_buy_quote executes it at exactly its usdAmount.',
      inputSchema: quoteQuery,
      outputSchema: quoteOutput,
      run: (deps, q: z.output<typeof quoteQuery>) =>
        createQuote(deps, {
          tokenId: q.tokenId,
          side: q.side,
          usdAmount: q.usdAmount === undefined ? undefined : parseUsd(q.usdAmount, 'usdAmount'),
          tokens: q.tokens === undefined ? undefined : parseTokens(q.tokens, 'tokens'),
          slippageBps: BigInt(q.slippageBps),
        }),
    },
    {
      kind: 'free',
      name: 'get_prices',
      title: 'Payment asset prices',
      readOnly: true,
      description: 'USD price of each payment asset (USDC, EURC) per network, the sources asked and their answers: what a EURC payment is priced at.',
      inputSchema: z.strictObject({}),
      outputSchema: pricesOutput,
      run: (deps) => getPrices(deps),
    },
    {
      kind: 'free',
      name: 'list_trades',
      title: "List a token's trades",
      readOnly: true,
      description: "A token's trades, newest first: side, USD amount, fee, tokens, average price, venue (curve or uniswap-v2).",
      inputSchema: withToken(tradesQuery),
      outputSchema: tradePageOutput,
      run: (deps, q: z.output<typeof tradesQuery> & { tokenId: string }) => listTrades(deps, q.tokenId, { limit: q.limit, cursor: q.cursor }),
    },
    {
      kind: 'free',
      name: 'get_candles',
      title: 'Price candles',
      readOnly: true,
      description: "OHLCV candles of a token's trades (interval 1m, 5m, 1h or 1d; default the last 100 intervals).",
      inputSchema: withToken(candlesQuery),
      outputSchema: candlesOutput,
      run: (deps, q: z.output<typeof candlesQuery> & { tokenId: string }) =>
        getCandles(deps, q.tokenId, { interval: q.interval, ...(q.from ? { from: new Date(q.from) } : {}), ...(q.to ? { to: new Date(q.to) } : {}) }),
    },
    {
      kind: 'free',
      name: 'list_holders',
      title: "List a token's holders",
      readOnly: true,
      description: "A token's top holders with their balance and share of the tokens in circulation.",
      inputSchema: withToken(holdersQuery),
      outputSchema: holdersOutput,
      run: (deps, q: z.output<typeof holdersQuery> & { tokenId: string }) => listHolders(deps, q.tokenId, q.limit),
    },
    {
      kind: 'free',
      name: 'get_payment',
      title: 'Get a payment',
      readOnly: true,
      description:
        'The state of a payment by paymentId: APPLIED (done), REFUNDED (paid back), REJECTED or FAILED (nothing charged), or still VERIFIED/SETTLING/SETTLED. Call it after a paid tool answered status "pending".',
      inputSchema: z.strictObject({ paymentId: id('pay', 'payment') }),
      outputSchema: paymentOutput,
      run: (deps, q: { paymentId: string }) => getPayment(deps, q.paymentId),
    },
    {
      kind: 'free',
      name: 'get_delivery',
      title: 'Get a delivery',
      readOnly: true,
      description: "Where a buy's tokens are on their way to the buyer's wallet (PENDING, SENT, CONFIRMED), by the deliveryId a buy answered.",
      inputSchema: z.strictObject({ deliveryId: id('dlv', 'delivery') }),
      outputSchema: deliveryOutput,
      run: (deps, q: { deliveryId: string }) => getDelivery(deps, q.deliveryId),
    },
    {
      kind: 'free',
      name: 'get_payout',
      title: 'Get a payout',
      readOnly: true,
      description: 'A USDC payout the service owes a wallet (sell proceeds, a refund, fee shares): its amount, state and transaction, by the payoutId a sell answered.',
      inputSchema: z.strictObject({ payoutId: id('pout', 'payout') }),
      outputSchema: payoutOutput,
      run: (deps, q: { payoutId: string }) => getPayout(deps, q.payoutId),
    },
    {
      kind: 'free',
      name: 'prepare_sell',
      title: 'Prepare a sell',
      readOnly: true,
      description:
        "Step 1 of a sell: the EIP-712 typed data `wallet` signs so custody may pull `tokens` of the token (valid 10 minutes), and the tokenAuthorization to send to token_sell with the `signature` added. Sign typedData with the wallet's key (eth_signTypedData_v4).",
      inputSchema: withToken(sellAuthorizationQuery),
      outputSchema: sellAuthorizationOutput,
      run: (deps, q: z.output<typeof sellAuthorizationQuery> & { tokenId: string }) =>
        sellAuthorization(deps, { tokenId: q.tokenId, wallet: getAddress(q.wallet), tokens: parseTokens(q.tokens, 'tokens') }),
    },
  ];
}

/** Paid tools by the entrypoint they pay for: the name an agent calls, its title, and whether it only reads. */
const PAID: readonly { name: string; entrypoint: string; title: string; readOnly: boolean; howTo?: string }[] = [
  { name: 'create_token', entrypoint: 'token_create', title: 'Create a token', readOnly: false },
  { name: 'token_buy_usd', entrypoint: 'token_buy_usd', title: 'Buy for a USD amount', readOnly: false },
  { name: 'token_buy_tokens', entrypoint: 'token_buy_tokens', title: 'Buy a number of tokens', readOnly: false },
  { name: 'token_buy_quote', entrypoint: 'token_buy_quote', title: 'Buy at a quote', readOnly: false, howTo: 'Get the quoteId from get_quote.' },
  {
    name: 'token_sell',
    entrypoint: 'token_sell',
    title: 'Sell tokens',
    readOnly: false,
    howTo: 'Step 2 of a sell: call prepare_sell first, sign its typedData, and pass its tokenAuthorization with the signature.',
  },
  { name: 'token_info', entrypoint: 'token_info', title: 'Token analytics', readOnly: true },
];

const PAYING =
  'Paid with x402: called without payment it answers isError with the x402 PaymentRequired (structuredContent); an x402 MCP client signs one of its offers and calls again with the PaymentPayload in _meta["x402/payment"]. The payer is the caller (creator, buyer, seller).';

/** The paid tools of an entrypoint catalogue. */
export function paidTools(entrypoints: ReadonlyMap<string, AnyEntrypoint>): PaidTool[] {
  return PAID.map((p) => {
    const entrypoint = entrypoints.get(p.entrypoint);
    if (!entrypoint) throw new Error(`no entrypoint ${p.entrypoint} for the tool ${p.name}`);
    return {
      kind: 'paid',
      name: p.name,
      title: p.title,
      readOnly: p.readOnly,
      entrypoint,
      summary: [entrypoint.description, p.howTo].filter(Boolean).join(' '),
      description: [entrypoint.description, p.howTo, PAYING].filter(Boolean).join(' '),
    };
  });
}

/** Every tool: the free reads, then the paid entrypoints. */
export function agentTools(entrypoints: ReadonlyMap<string, AnyEntrypoint>): AgentTool[] {
  return [...freeTools(), ...paidTools(entrypoints)];
}
