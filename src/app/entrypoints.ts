/**
 * The paid operations (docs/api.md, "Paid endpoints") as one catalogue: each has its input schema,
 * its price rule, the checks run before a payment is requested (`prepare`) and the operation
 * itself (`execute`). The HTTP adapter and the payment pipeline are generic over this table.
 */
import { getAddress } from 'viem';
import type { z } from 'zod';
import { formatUsd, parseTokens, parseUsd } from '../domain/money.js';
import type { Network } from '../domain/network.js';
import { validateTokenMetadata, type TokenMetadata } from '../domain/token.js';
import type { PriceRule } from './catalogue/operation.js';
import type { AppDeps } from './deps.js';
import type { Settings } from './settings.js';
import { applyInUnitOfWork, type Paid } from './paid.js';
import { buyQuoteInput, buyTokensInput, buyUsdInput, createTokenInput, parseWith, sellInput, tokenInfoInput } from './schemas.js';
import { buyOutput, createTokenOutput, sellOutput, tokenInfoOutput } from './output-schemas.js';
import { buyToken, planBuy, type BuyPlan, type BuyRequest } from './use-cases/buy-token.js';
import { checkInitialBuy, createToken } from './use-cases/create-token.js';
import { checkReferrer } from './trading/check-referrer.js';
import { loadToken, type DeployedToken } from './trading/load-token.js';
import { checkSell, sellToken, type SellRequest } from './use-cases/sell-token.js';
import { tokenInfoFrom } from './use-cases/token-info.js';

/** Who pays: the wallet (hint or verified payer) and its network. */
export interface Caller {
  wallet: string;
  network: Network;
}

export interface Prepared {
  /** The price in USD micro-units; each offer of the 402 carries exactly this in its asset. */
  amount: bigint;
  /** The only network this operation can be paid on (a token's network), or null for either. */
  network: Network | null;
}

export interface Entrypoint<I = unknown, P extends Prepared = Prepared, R = unknown> {
  kind: 'paid';
  name: string;
  operation: string;
  description: string;
  /** Its MCP tool: the name an agent calls, a short title, whether it only reads, and what to do first. */
  tool: { name: string; title: string; readOnly: boolean; howTo?: string };
  /** Where it answers over HTTP besides `/entrypoints/<name>[/invoke]` (a create: `POST /tokens`). */
  alsoAt?: string;
  /** Fixed (a setting) or computed from the input (the buys). */
  priceRule: Exclude<PriceRule, { kind: 'free' }>;
  /** For the manifest: a fixed price in USD, or how the price is set. */
  price(settings: Settings): string;
  successStatus: 200 | 201;
  inputSchema: z.ZodType;
  outputSchema: z.ZodType;
  parse(raw: unknown): I;
  /**
   * The rules and the price. `ask`: the 402 of a request without payment (a held price is offered
   * only while the live one is not lower). `apply`: a settled payment is about to be applied (by
   * the reconciler) — checks whose subject the operation itself performs (a sell's pull) are left to it.
   */
  prepare(deps: AppDeps, input: I, caller?: Caller, phase?: 'ask' | 'price' | 'apply'): Promise<P>;
  /**
   * The operation, applied with its payment (paid.ts); returns the result whose answer `paid.answer` stores.
   * On a refusal (a domain error) it undoes what it did itself (a sell returns the tokens it
   * pulled); the payment pipeline then refunds the payment (payments/pipeline/application.ts).
   */
  execute(deps: AppDeps, input: I, prepared: P, caller: Caller, paid: Paid<R>): Promise<R>;
  /**
   * Paid access that outlives the request (docs/api.md, "Sign-In-With-X"): a payer who proves
   * its wallet with Sign-In-With-X is served again without paying for INFO_ACCESS_SECONDS. Only
   * for reads.
   */
  grantsAccess?: { serve(deps: AppDeps, input: I): Promise<R> };
}

/** An entrypoint of any input and result: the catalogue is heterogeneous by nature. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEntrypoint = Entrypoint<any, any, any>;

type BuyPrepared = Prepared & { plan: BuyPlan };

/** A price line as the manifest states it: "0.01", or how the input sets it ("= usdAmount"). */
export const priceLine = (rule: PriceRule, settings: Settings): string =>
  rule.kind === 'fixed' ? formatUsd(rule.usd(settings)) : rule.kind === 'computed' ? rule.rule : 'free';

const fixed = (usd: (settings: Settings) => bigint) => {
  const priceRule = { kind: 'fixed', usd } as const;
  return { priceRule, price: (settings: Settings) => priceLine(priceRule, settings) };
};

/** Where an entrypoint answers over HTTP (the manifest's `paths`). Its canonical resource is `/entrypoints/<name>`. */
export function entrypointPaths(e: Pick<AnyEntrypoint, 'name' | 'alsoAt'>): string[] {
  const paths = [`/entrypoints/${e.name}`, `/entrypoints/${e.name}/invoke`];
  return e.alsoAt ? [e.alsoAt, ...paths] : paths;
}

function buyEntrypoint(
  name: string,
  tool: Entrypoint['tool'],
  description: string,
  rule: string,
  inputSchema: z.ZodType,
  toRequest: (raw: Record<string, string>) => BuyRequest,
): Entrypoint<BuyRequest, BuyPrepared> {
  return {
    kind: 'paid',
    name,
    operation: 'buy_token',
    description,
    tool,
    priceRule: { kind: 'computed', rule },
    price: () => rule,
    successStatus: 200,
    inputSchema,
    outputSchema: buyOutput,
    parse: (raw) => {
      const v = parseWith(inputSchema, raw) as Record<string, string>;
      return { ...toRequest(v), referrer: referrerOf(v) };
    },
    async prepare(deps, input, caller, phase) {
      await checkReferrer(deps, 'referrer', input.referrer);
      const plan = await planBuy(deps, input, caller?.network, phase, caller?.wallet);
      return { amount: plan.grossUsd, network: plan.network, plan };
    },
    execute: (deps, input, prepared, caller, paid) =>
      buyToken(deps, { plan: prepared.plan, buyer: caller.wallet, network: caller.network, referrer: input.referrer ?? null }, paid),
  };
}

const opt = <T>(v: string | undefined, f: (s: string) => T) => (v === undefined ? undefined : f(v));
const referrerOf = (v: { referrer?: string | undefined }) => (v.referrer ? getAddress(v.referrer) : null);

export function entrypoints(): AnyEntrypoint[] {
  const create: Entrypoint<TokenMetadata & { platformReferrer: string | null; initialBuyUsd: bigint | null }> = {
    kind: 'paid',
    name: 'token_create',
    operation: 'create_token',
    description: 'Create a token on the bonding curve; the payer is its creator and its network is the payment network.',
    tool: { name: 'create_token', title: 'Create a token', readOnly: false },
    alsoAt: '/tokens',
    ...fixed((settings) => settings.prices.create),
    successStatus: 201,
    inputSchema: createTokenInput,
    outputSchema: createTokenOutput,
    parse: (raw) => {
      const input = parseWith(createTokenInput, raw);
      return {
        ...validateTokenMetadata(input),
        platformReferrer: input.platformReferrer ? getAddress(input.platformReferrer) : null,
        initialBuyUsd: opt(input.initialBuyUsd, parseUsd) ?? null,
      };
    },
    // With a dev buy the price is the create's plus the buy, checked on the fresh curve first.
    async prepare(deps, input) {
      if (input.initialBuyUsd) checkInitialBuy(deps, input.initialBuyUsd);
      await checkReferrer(deps, 'platformReferrer', input.platformReferrer);
      return { amount: deps.settings.prices.create + (input.initialBuyUsd ?? 0n), network: null };
    },
    execute: (deps, { platformReferrer, initialBuyUsd, ...metadata }, _p, caller, paid) =>
      createToken(deps, { metadata, creator: caller.wallet, platformReferrer, initialBuyUsd, network: caller.network }, paid),
  };
  const sell: Entrypoint<SellRequest, Prepared & { token: DeployedToken }> = {
    kind: 'paid',
    name: 'token_sell',
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
        authorization: { ...a, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore) },
        referrer: referrerOf(v),
      };
    },
    async prepare(deps, input, caller, phase) {
      await checkReferrer(deps, 'referrer', input.referrer);
      const { network, token } = await checkSell(deps, input, caller, phase);
      return { amount: deps.settings.prices.sell, network, token };
    },
    // The token as the rules were checked, moments before: what the pull needs of it cannot have changed.
    execute: (deps, input, prepared, caller, paid) =>
      sellToken(deps, { ...input, seller: caller.wallet, network: caller.network }, paid, prepared.token),
  };
  const info: Entrypoint<{ tokenId: string }> = {
    kind: 'paid',
    name: 'token_info',
    operation: 'token_info',
    description: 'The token plus top holders, 24-hour volume, price change, trades and hourly candles.',
    tool: { name: 'token_info', title: 'Token analytics', readOnly: true },
    ...fixed((settings) => settings.prices.info),
    successStatus: 200,
    inputSchema: tokenInfoInput,
    outputSchema: tokenInfoOutput,
    parse: (raw) => parseWith(tokenInfoInput, raw),
    // Information is not network-bound: any wallet may pay on its own network.
    async prepare(deps, input) {
      await deps.uow.run((stores) => loadToken(stores, input.tokenId));
      return { amount: deps.settings.prices.info, network: null };
    },
    execute: (deps, input, _p, _caller, paid) =>
      applyInUnitOfWork(deps, paid, (stores, now) => tokenInfoFrom(stores, input.tokenId, now)),
    // Bought once, the information of every token is free to the same wallet for a while.
    grantsAccess: { serve: (deps, input) => applyInUnitOfWork(deps, undefined, (stores, now) => tokenInfoFrom(stores, input.tokenId, now)) },
  };
  return [
    create,
    buyEntrypoint(
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
    ),
    buyEntrypoint(
      'token_buy_tokens',
      { name: 'token_buy_tokens', title: 'Buy a number of tokens', readOnly: false },
      'Buy at least `tokens`; the price is their current cost plus fee, held 60 s for the wallet that asked.',
      '= quoted cost of tokens',
      buyTokensInput,
      (v) => ({ kind: 'tokens', tokenId: v.tokenId!, tokens: parseTokens(v.tokens), maxUsd: opt(v.maxUsd, parseUsd) }),
    ),
    buyEntrypoint(
      'token_buy_quote',
      { name: 'token_buy_quote', title: 'Buy at a quote', readOnly: false, howTo: 'Get the quoteId from get_quote.' },
      'Execute a quote from GET /api/quote (valid 60 s) with its minTokensOut.',
      "= the quote's usdAmount",
      buyQuoteInput,
      (v) => ({ kind: 'quote', quoteId: v.quoteId! }),
    ),
    sell,
    info,
  ];
}
