/**
 * Placing an order (docs/api.md "Orders"): the typed data to sign (GET /api/orders/authorization)
 * and `order_place` (paid, ORDER_PRICE_USD). Everything is checked before the payment is taken —
 * the token and its network, the trigger, the expiry (at most 30 days), the buy's size, and the
 * held authorization in full (signature, wallet, amount, custody, window ≥ expiresAt, nonce unused
 * on chain, balance now) — so a refusal charges nothing. Applying the payment stores the order
 * OPEN with its event, in the payment's transaction.
 */
import { SlippageExceeded, ValidationError } from '../../domain/errors.js';
import { formatTokens } from '../../domain/money.js';
import { NETWORKS, type Network, type PaymentAsset } from '../../domain/network.js';
import { checkTriggerInReach, isBuyOrder, MAX_ORDER_LIFETIME_MS, MIN_ORDER_TOKENS, priceOfSpot, sellOrderBound, STOP_LOSS_BAND_BPS, type Order, type OrderKind } from '../../domain/order.js';
import { receiveAuthorizationTypedData, type TokenAuthorization } from '../../domain/token-authorization.js';
import type { Token } from '../../domain/token.js';
import type { AppDeps } from '../kit/deps.js';
import { type HeldAuthorizationKey, type Payer, checkHeldAuthorization, checkHeldTokenAuthorization, heldAuthorizationFields, heldAuthorizationTypedData, heldKeyOf, holdAuthorization, ownFee, paymentHolder, refuseIfHeld, stablecoin } from '../held/index.js';
import { applyInUnitOfWork, type Paid } from '../kit/paid.js';
import { checkBuySize, deployedToken, refuseLockedSale, tradedToken, venueFor, type VenueDeps } from '../trading/index.js';
import { orderView, spotOf, type OrderView } from './order-view.js';

/** The stablecoin a limit buy's authorization moves: USDC, the curve's and the pool's own asset. */
export const ORDER_ASSET: PaymentAsset = 'USDC';

export interface OrderSpec {
  tokenId: string;
  kind: OrderKind;
  /** USD per whole token × 10^18. */
  triggerPrice: bigint;
  usdAmount?: bigint | undefined;
  tokens?: bigint | undefined;
  minTokensOut?: bigint | undefined;
  minUsdOut?: bigint | undefined;
  expiresAt: Date;
}

export interface PlaceOrderInput extends OrderSpec {
  authorization: TokenAuthorization;
}

/** The order's amount: usdAmount for a limit buy, tokens for a sell — exactly one of them. */
function amountOf(spec: Pick<OrderSpec, 'kind' | 'usdAmount' | 'tokens'>): bigint {
  const buy = isBuyOrder(spec);
  const [wanted, other] = buy ? (['usdAmount', 'tokens'] as const) : (['tokens', 'usdAmount'] as const);
  if (spec[other] !== undefined) throw ValidationError.of(other, `is not for a ${spec.kind} order (it takes ${wanted})`);
  const amount = spec[wanted];
  if (amount === undefined || amount <= 0n) throw ValidationError.of(wanted, `is required for a ${spec.kind} order, more than 0`);
  return amount;
}

/** The checks of the order itself (no chain, no authorization); returns its token and amount. */
async function checkSpec(deps: VenueDeps, spec: OrderSpec, network: Network | undefined): Promise<{ token: Token & { address: string }; amount: bigint }> {
  if (spec.triggerPrice <= 0n) throw ValidationError.of('triggerPriceUsd', 'must be more than 0');
  const now = deps.clock.now().getTime();
  const expires = spec.expiresAt.getTime();
  if (expires <= now) throw ValidationError.of('expiresAt', 'must be in the future');
  if (expires > now + MAX_ORDER_LIFETIME_MS) throw ValidationError.of('expiresAt', 'must be at most 30 days ahead');
  if (isBuyOrder(spec) && spec.minUsdOut !== undefined) throw ValidationError.of('minUsdOut', 'is for sell orders (a limit buy takes minTokensOut)');
  if (!isBuyOrder(spec) && spec.minTokensOut !== undefined) throw ValidationError.of('minTokensOut', 'is for limit buys (a sell order takes minUsdOut)');
  const amount = amountOf(spec);
  // The smallest order (decision 0067): a limit buy as the smallest buy, a sell of at least one whole token.
  if (!isBuyOrder(spec) && amount < MIN_ORDER_TOKENS) throw ValidationError.of('tokens', `must be at least ${formatTokens(MIN_ORDER_TOKENS)} (one whole token) for a ${spec.kind} order`);
  const token = deployedToken(await deps.uow.run((s) => tradedToken(s, spec.tokenId, isBuyOrder(spec) ? 'buy' : 'sell', network)));
  checkTriggerInReach(spec.triggerPrice, token.params.totalSupply);
  if (isBuyOrder(spec)) checkBuySize(deps, amount, { usdAmount: amount });
  if (spec.kind === 'stop_loss' && spec.minUsdOut === undefined) await checkStopLossDepth(deps, token, amount);
  return { token, amount };
}

/**
 * A stop-loss without a floor of its own sells within STOP_LOSS_BAND_BPS of its trigger
 * (sellOrderBound), so its own sale must fit in that band, or it could never execute. Checked
 * where the market stands now: at a trigger below it the curve and the pool are deeper for a
 * sale of the same tokens (a constant product holds more tokens at a lower price), so a sale that
 * fits the band at the spot fits it at the trigger. Too large a one is refused before the 402,
 * asking for the least the wallet accepts (docs/api.md "Orders", decision 0067).
 */
async function checkStopLossDepth(deps: VenueDeps, token: Token, tokens: bigint): Promise<void> {
  const spot = await spotOf(deps, token);
  if (!spot) return;
  const atSpot = sellOrderBound({ kind: 'stop_loss', triggerPrice: priceOfSpot(spot), tokens, minUsdOut: null }, token.params.feeBps);
  try {
    await venueFor(deps, token, 'sell').checkSell(token, tokens, atSpot);
  } catch (e) {
    if (!(e instanceof SlippageExceeded)) throw e;
    throw ValidationError.of(
      'minUsdOut',
      `is needed for a stop-loss of ${formatTokens(tokens)} tokens: its own sale moves the price more than ${Number(STOP_LOSS_BAND_BPS) / 100} %, the band a stop-loss without one sells within — give the least USD you accept`,
    );
  }
}

/** GET /api/orders/authorization: what `wallet` signs for the order described, valid until its expiry. */
export async function orderAuthorization(deps: VenueDeps & Pick<AppDeps, 'tokenIssuer'>, q: OrderSpec & { wallet: string }) {
  const { token, amount } = await checkSpec(deps, q, undefined);
  const validUntil = q.expiresAt;
  const held = isBuyOrder(q)
    ? heldAuthorizationTypedData(deps, { network: token.network, asset: ORDER_ASSET, wallet: q.wallet, amount, validUntil })
    : tokenTypedData(deps, token, q.wallet, amount, validUntil);
  return { tokenId: token.tokenId, network: token.network, kind: q.kind, expiresAt: q.expiresAt.toISOString(), ...held };
}

function tokenTypedData(deps: Pick<AppDeps, 'ids' | 'tokenIssuer'>, token: Token & { address: string }, wallet: string, amount: bigint, validUntil: Date) {
  const message = {
    from: wallet,
    to: deps.tokenIssuer.custody(token.network),
    value: amount,
    validAfter: 0n,
    validBefore: BigInt(Math.ceil(validUntil.getTime() / 1000)),
    nonce: deps.ids.nonce32(),
  };
  const typed = receiveAuthorizationTypedData({ chainId: NETWORKS[token.network].chainId, token: { address: token.address, name: token.name }, message });
  const fields = heldAuthorizationFields(message);
  return { typedData: { ...typed, message: fields }, authorization: fields };
}

/**
 * order_place's `prepare`: every check, before any payment. The wallet is the payer once known,
 * else the authorization's `from` (a 402 asks nothing of who pays). `apply`: the payment is
 * settled — what the chain said when it was priced is not asked again.
 */
export async function checkPlaceOrder(deps: VenueDeps & Pick<AppDeps, 'tokenIssuer'>, input: PlaceOrderInput, caller?: Payer, phase: 'ask' | 'price' | 'apply' = 'price'): Promise<{ network: Network }> {
  const { token, amount } = await checkSpec(deps, input, caller?.network);
  if (phase === 'apply') return { network: token.network };
  const wallet = caller?.wallet ?? input.authorization.from;
  const check = { network: token.network, wallet, amount, authorization: input.authorization, validUntil: input.expiresAt };
  if (isBuyOrder(input)) await checkHeldAuthorization(deps, { ...check, asset: ORDER_ASSET, alsoPays: ownFee(caller, wallet, ORDER_ASSET) });
  else await checkHeldTokenAuthorization(deps, { ...check, token: { address: token.address, name: token.name }, short: (balance, needed) => refuseLockedSale(token, wallet, needed, balance) });
  // Held by another open order or pledge, or by a payment placing one: only one could ever collect it.
  await deps.uow.run((s) => refuseIfHeld(s, orderHeldKey(token.network, input)));
  return { network: token.network };
}

/** The held authorization an order carries: a limit buy's USDC, a sell order's token. */
export const orderHeldKey = (network: Network, o: Pick<OrderSpec, 'kind' | 'tokenId'> & { authorization: { from: string; nonce: string } }): HeldAuthorizationKey =>
  heldKeyOf(network, isBuyOrder(o) ? ORDER_ASSET : o.tokenId, o.authorization);

/**
 * order_place's claim: the payment holds the order's authorization from its claim to its
 * application, so a rival request carrying the same one is refused before its fee settles.
 */
export function reserveOrderAuthorization(deps: Pick<AppDeps, 'uow'>, input: PlaceOrderInput, network: Network, paymentId: string): Promise<void> {
  return deps.uow.transaction((s) => holdAuthorization(s, orderHeldKey(network, input), paymentHolder(paymentId)));
}

/**
 * order_place's `execute`: the order stored OPEN with its `order.placed` event, with the payment
 * applied — the order taking its authorization from the payment that held it since its claim;
 * held by another open order or pledge, it is refused (and the settled fee refunded).
 */
export function placeOrder(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids'>, input: PlaceOrderInput, caller: { wallet: string; network: Network }, paid?: Paid<OrderView>): Promise<OrderView> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const order: Order = {
      orderId: deps.ids.next('ord'),
      network: caller.network,
      tokenId: input.tokenId,
      wallet: caller.wallet,
      kind: input.kind,
      triggerPrice: input.triggerPrice,
      usdAmount: input.usdAmount ?? null,
      tokens: input.tokens ?? null,
      minTokensOut: input.minTokensOut ?? null,
      minUsdOut: input.minUsdOut ?? null,
      asset: isBuyOrder(input) ? ORDER_ASSET : null,
      authorization: input.authorization,
      expiresAt: input.expiresAt,
      state: 'OPEN',
      reason: null,
      tradeId: null,
      paymentId: paid?.payment.paymentId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await holdAuthorization(stores, orderHeldKey(order.network, order), { kind: 'order', id: order.orderId }, paid && paymentHolder(paid.payment.paymentId));
    await stores.orders.insert(order);
    const view = orderView(order);
    await stores.events.append({ type: 'order.placed', network: order.network, tokenId: order.tokenId, data: { order: view }, createdAt: now });
    return view;
  });
}

/** The stablecoin contract a buy order's authorization is collected on. */
export const orderAssetAddress = (o: Pick<Order, 'network' | 'asset'>): string => stablecoin(o.network, o.asset ?? ORDER_ASSET).address;
