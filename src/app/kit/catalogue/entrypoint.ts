/**
 * The paid operations (docs/api.md, "Paid endpoints") as one catalogue: each has its input schema,
 * its price rule, the checks run before a payment is requested (`prepare`) and the operation
 * itself (`execute`). The HTTP adapter and the payment pipeline are generic over this table.
 */
import { getAddress } from 'viem';
import type { z } from 'zod';
import { formatUsd, parseAmount, parseTokens, parseUsd } from '../../../domain/money.js';
import { authorizationFromText } from '../../../domain/token-authorization.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import { ValidationError } from '../../../domain/errors.js';
import type { FairLaunchTerms } from '../../../domain/raise.js';
import { validateTokenMetadata, type TokenMetadata } from '../../../domain/token.js';
import type { PriceRule } from './operation.js';
import type { AppDeps } from '../deps.js';
import type { Settings } from '../settings.js';
import type { Payment } from '../../../domain/payment.js';
import { applyInUnitOfWork, type Paid, type RefusedInCustody } from '../paid.js';
import { buyQuoteInput, buyTokensInput, buyUsdInput, sellInput } from '../../trading/schemas.js';
import { commentInput } from '../../social/schemas.js';
import { createTokenInput, tokenImageInput, tokenInfoInput } from '../../tokens/schemas.js';
import { parseWith } from '../schemas.js';
import { pledgeInput } from '../../raises/schemas.js';
import { buyOutput, sellOutput } from '../../trading/schemas.js';
import { commentOutput } from '../../social/schemas.js';
import { createTokenOutput, tokenInfoOutput } from '../../tokens/schemas.js';
import { pledgeOutput } from '../../raises/schemas.js';
import { tokenOutput } from '../output-schemas.js';
import { IMAGE_BODY_LIMIT_BYTES, type PreparedImage } from '../images/image-intake.js';
import { checkTokenImage, imageIntake, setTokenImage } from '../../tokens/set-token-image.js';
import { checkPledge, placePledge, reservePledgeAuthorization, type PledgeRequest } from '../../raises/pledge.js';
import { buyToken, planBuy, recordedBuyPlan, type BuyPlan, type BuyRequest } from '../../trading/buy-token.js';
import { swapRecorded } from '../../custody/pool-swap.js';
import { checkComment, postComment, type CheckedComment, type CommentRequest } from '../../social/comments.js';
import { checkFairLaunch, checkInitialBuy, createToken } from '../../tokens/create-token.js';
import { checkReferrer } from '../../trading/check-referrer.js';
import { loadToken, type DeployedToken } from '../../trading/load-token.js';
import { checkSell, pulledTokens, sellToken, type SellRequest } from '../../trading/sell-token.js';
import { tokenInfoFrom } from '../../tokens/token-info.js';
import { specOf } from '../../orders/order-catalogue.js';
import { orderOutput, placeOrderInput } from '../../orders/order-schemas.js';
import type { OrderView } from '../../orders/order-view.js';
import { checkPlaceOrder, placeOrder, reserveOrderAuthorization, type PlaceOrderInput } from '../../orders/place-order.js';
import { PRICE_DECIMALS } from '../../../domain/order.js';

/** Who pays: the wallet (hint or verified payer) and its network. */
export interface Caller {
  wallet: string;
  network: Network;
  /**
   * Applying a settled payment (phase `apply`): when it was paid. What the payment was offered
   * at — a quote, a held price — is checked as of then, not now: a payment the reconciler
   * finishes after its quote expired was made while it held (its pool swap may be mined already).
   */
  paidAt?: Date;
  /** Applying a settled payment: its id, to find what custody recorded for it (a buy's pool swap, decision 0061). */
  paymentId?: string;
  /**
   * The payment this call is being paid with, once it is sent (admission, claim): its asset and
   * amount — a held authorization of that asset from the payer must leave room for it as well.
   */
  fee?: { asset: PaymentAsset; amount: bigint };
}

export interface Prepared {
  /** The price in USD micro-units; each offer of the 402 carries exactly this in its asset. */
  amount: bigint;
  /** The only network this operation can be paid on (a token's network), or null for either. */
  network: Network | null;
  /**
   * Applying a settled payment whose operation custody has carried out on chain already (a pool
   * swap recorded for it, decision 0061): what was paid is what it costs — its price is not
   * checked again — and it is booked as it was done.
   */
  done?: true;
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
  /** The largest request body it takes, in bytes, when larger than a transport's default (an image upload). */
  bodyLimit?: number;
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
   * On a refusal after it took something into custody (a sell's pulled tokens) it throws a
   * `RefusedInCustody` naming what to give back; the payment pipeline refunds the payment and
   * gives it back in one transaction (payments/pipeline/application.ts).
   */
  execute(deps: AppDeps, input: I, prepared: P, caller: Caller, paid: Paid<R>): Promise<R>;
  /**
   * What the operation must hold alone, taken for the payment as it is claimed, before its fee
   * settles — an order's or a pledge's held authorization (decision 0067) — so of rival requests
   * one goes on and the others are refused uncharged (REJECTED). `execute` takes it over from the payment.
   */
  reserve?(deps: AppDeps, input: I, prepared: P, payment: Payment): Promise<void>;
  /**
   * What custody took in for a settled payment of it before its request stopped — a sell's pulled
   * tokens, once the pull is mined — for a refusal met when the payment is applied again (a rule
   * changed since) to give back with its refund (decision 0061). Null: nothing taken.
   */
  takenInCustody?(deps: AppDeps, input: I, payment: Payment): Promise<Pick<RefusedInCustody, 'taken' | 'giveBack'> | null>;
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
type CreateInput = TokenMetadata & { platformReferrer: string | null; initialBuyUsd: bigint | null; image: string | null; fairLaunch: FairLaunchTerms | null };
/** An upload is checked and re-encoded before the 402 (decision 0049): what execute stores. */
type WithImage = Prepared & { image: PreparedImage | null };

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

const opt = <T>(v: string | undefined, f: (s: string) => T) => (v === undefined ? undefined : f(v));
const referrerOf = (v: { referrer?: string | undefined }) => (v.referrer ? getAddress(v.referrer) : null);

/** token_image: a creator's new image for its token (docs/api.md "Token images"), checked before the 402. */
function imageEntrypoint(): Entrypoint<{ tokenId: string; image: string }, Prepared & { image: PreparedImage }> {
  return {
    kind: 'paid',
    name: 'token_image',
    operation: 'set_token_image',
    description:
      "Give a token a new image (only its creator: the payer must be the wallet that created it). The image is checked by its bytes (PNG, JPEG, WebP or GIF, at most 1 MiB; SVG refused) before any payment, and kept as WebP with a thumbnail at the token's imageUrl and thumbnailUrl.",
    tool: { name: 'set_token_image', title: "Change a token's image", readOnly: false },
    ...fixed((settings) => settings.prices.image),
    successStatus: 200,
    bodyLimit: IMAGE_BODY_LIMIT_BYTES,
    inputSchema: tokenImageInput,
    outputSchema: tokenOutput,
    parse: (raw) => parseWith(tokenImageInput, raw),
    async prepare(deps, input, caller) {
      const checked = await checkTokenImage(deps, input, caller?.wallet);
      return { amount: deps.settings.prices.image, network: checked.network, image: checked.image };
    },
    execute: (deps, input, prepared, caller, paid) => setTokenImage(deps, { tokenId: input.tokenId, image: prepared.image, payer: caller.wallet }, paid),
  };
}

/** order_place: paid (ORDER_PRICE_USD), every check in `prepare` so a refusal charges nothing. */
function placeOrderEntrypoint(): Entrypoint<PlaceOrderInput, Prepared, OrderView> {
  return {
    kind: 'paid',
    name: 'order_place',
    operation: 'place_order',
    description:
      "Place a limit_buy, stop_loss or take_profit that executes when the token's price crosses triggerPriceUsd, on its curve or pool, with the usual fee. It carries a signed authorization (GET /api/orders/authorization) the service holds unused until then: the money or tokens never leave the wallet before.",
    tool: { name: 'order_place', title: 'Place an order', readOnly: false, howTo: 'Step 2 of an order: call prepare_order first, sign its typedData, and pass its authorization with the signature.' },
    ...fixed((settings) => settings.prices.order),
    successStatus: 201,
    inputSchema: placeOrderInput,
    outputSchema: orderOutput,
    parse: (raw) => {
      const v = parseWith(placeOrderInput, raw);
      const a = v.authorization;
      return {
        ...specOf(v),
        triggerPrice: parseAmount(v.triggerPriceUsd, PRICE_DECIMALS, 'triggerPriceUsd'),
        minTokensOut: opt(v.minTokensOut, parseTokens),
        minUsdOut: opt(v.minUsdOut, parseUsd),
        authorization: authorizationFromText(a),
      };
    },
    async prepare(deps, input, caller, phase) {
      const { network } = await checkPlaceOrder(deps, input, caller, phase);
      return { amount: deps.settings.prices.order, network };
    },
    reserve: (deps, input, prepared, payment) => reserveOrderAuthorization(deps, input, prepared.network ?? payment.network, payment.paymentId),
    execute: (deps, input, _p, caller, paid) => placeOrder(deps, input, caller, paid),
  };
}

/** token_comment: a paid comment or reply on a token's thread (docs/api.md "Comments"), every rule checked before the 402. */
function commentEntrypoint(): Entrypoint<CommentRequest, Prepared & { checked: CheckedComment }> {
  return {
    kind: 'paid',
    name: 'token_comment',
    operation: 'comment_token',
    description:
      "Post a comment on a token's thread, or a reply (`replyTo`) to one of its top-level comments; the payer is the author. Plain text, 1–500 Unicode code points after NFC normalisation; control characters (but the newline) and bidi controls are refused before any payment.",
    tool: { name: 'token_comment', title: 'Comment on a token', readOnly: false },
    ...fixed((settings) => settings.prices.comment),
    successStatus: 201,
    inputSchema: commentInput,
    outputSchema: commentOutput,
    parse: (raw) => parseWith(commentInput, raw),
    // Every rule before the 402: a refused comment is never paid for. Paid on the token's network.
    async prepare(deps, input) {
      const checked = await checkComment(deps, input);
      return { amount: deps.settings.prices.comment, network: checked.network, checked };
    },
    execute: (deps, _input, prepared, caller, paid) => postComment(deps, prepared.checked, caller.wallet, paid),
  };
}

/** token_pledge: a fair launch's pledge, a held USDC authorization (docs/api.md "Fair launches"). */
function pledgeEntrypoint(): Entrypoint<PledgeRequest> {
  return {
    kind: 'paid',
    name: 'token_pledge',
    operation: 'pledge',
    tool: {
      name: 'token_pledge',
      title: 'Pledge to a fair launch',
      readOnly: false,
      howTo: 'Step 2 of a pledge: call prepare_pledge first, sign its typedData, and pass its authorization with the signature.',
    },
    description:
      "Pledge USDC to a fair launch's raise (a token created with launch.mode fair): the signed USDC authorization (GET /api/tokens/:id/pledge-authorization) is held, not used; at the raise's end it is collected only if the raise reaches its goal, and every pledger gets tokens at one price. $0.01, whatever happens.",
    ...fixed((settings) => settings.prices.pledge),
    successStatus: 201,
    inputSchema: pledgeInput,
    outputSchema: pledgeOutput,
    parse: (raw) => {
      const v = parseWith(pledgeInput, raw);
      const a = v.authorization;
      return {
        tokenId: v.tokenId,
        usdAmount: parseUsd(v.usdAmount),
        authorization: authorizationFromText(a),
      };
    },
    // Every refusal here, before the $0.01 is asked for: a pledge that cannot count charges nothing.
    async prepare(deps, input, caller, phase) {
      const { token } = await checkPledge(deps, input, phase, caller);
      return { amount: deps.settings.prices.pledge, network: token.network };
    },
    reserve: (deps, input, prepared, payment) => reservePledgeAuthorization(deps, input, prepared.network ?? payment.network, payment.paymentId),
    execute: (deps, input, _p, _caller, paid) => placePledge(deps, input, paid),
  };
}

export function entrypoints(): AnyEntrypoint[] {
  const create: Entrypoint<CreateInput, WithImage> = {
    kind: 'paid',
    name: 'token_create',
    operation: 'create_token',
    description: 'Create a token on the bonding curve; the payer is its creator and its network is the payment network.',
    tool: { name: 'create_token', title: 'Create a token', readOnly: false },
    alsoAt: '/tokens',
    ...fixed((settings) => settings.prices.create),
    successStatus: 201,
    bodyLimit: IMAGE_BODY_LIMIT_BYTES,
    inputSchema: createTokenInput,
    outputSchema: createTokenOutput,
    parse: (raw) => {
      const input = parseWith(createTokenInput, raw);
      if (input.image !== undefined && input.imageUrl !== undefined) throw ValidationError.of('image', 'give an image or an imageUrl, not both');
      return {
        ...validateTokenMetadata(input),
        platformReferrer: input.platformReferrer ? getAddress(input.platformReferrer) : null,
        initialBuyUsd: opt(input.initialBuyUsd, parseUsd) ?? null,
        image: input.image ?? null,
        fairLaunch: input.launch
          ? { goalUsd: parseUsd(input.launch.goalUsd), durationSeconds: input.launch.durationSeconds, maxPerWalletUsd: opt(input.launch.maxPerWalletUsd, parseUsd) ?? null }
          : null,
      };
    },
    // With a dev buy the price is the create's plus the buy, checked on the fresh curve first.
    async prepare(deps, input) {
      if (input.fairLaunch) checkFairLaunch(deps, input.fairLaunch, input.initialBuyUsd);
      if (input.initialBuyUsd) checkInitialBuy(deps, input.initialBuyUsd);
      await checkReferrer(deps, 'platformReferrer', input.platformReferrer);
      const image = input.image === null ? null : await imageIntake(deps).prepare(input.image);
      return { amount: deps.settings.prices.create + (input.initialBuyUsd ?? 0n), network: null, image };
    },
    execute: (deps, { platformReferrer, initialBuyUsd, fairLaunch, image: _upload, ...metadata }, prepared, caller, paid) =>
      createToken(deps, { metadata, creator: caller.wallet, platformReferrer, initialBuyUsd, fairLaunch, network: caller.network, image: prepared.image }, paid),
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
    pledgeEntrypoint(),
    placeOrderEntrypoint(),
    commentEntrypoint(),
    imageEntrypoint(),
  ];
}
