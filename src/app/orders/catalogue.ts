/**
 * The orders' entries of the catalogue (docs/decisions/0043, docs/api.md "Orders"): the free reads
 * (the typed data to sign, an order, a wallet's orders, a token's book), the free cancel, and the
 * paid `order_place`. Routes, MCP tools, OpenAPI, llms.txt and the page's types come from these.
 */
import { checksummed } from '../kit/address.js';
import { parseTokens, parseUsd } from '../../domain/money.js';
import { read } from '../kit/catalogue/operation.js';
import { parseWith, tokenIdSchema } from '../kit/schemas.js';
import { cancelOrder, getOrder, getOrderBook, listOrders } from './order-reads.js';
import { cancelOrderInput, placeOrderInput, listOrdersQuery, orderAuthorizationOutput, orderAuthorizationQuery, orderBookOutput, orderIdSchema, orderOutput, ordersOutput } from './schemas.js';
import { orderAuthorization, type OrderSpec } from './place-order.js';
import { z } from 'zod';
import { authorizationFromText } from '../../domain/token-authorization.js';
import { PRICE_DECIMALS } from '../../domain/order.js';
import { parseAmount } from '../../domain/money.js';
import { fixed, opt, type Entrypoint, type Prepared } from '../kit/catalogue/entrypoint.js';
import type { OrderView } from './order-view.js';
import { checkPlaceOrder, placeOrder, reserveOrderAuthorization, type PlaceOrderInput } from './place-order.js';
import { ORDER_EXAMPLES } from './examples.js';

export function specOf(v: { tokenId: string; kind: OrderSpec['kind']; usdAmount?: string | undefined; tokens?: string | undefined; expiresAt: string }) {
  return { tokenId: v.tokenId, kind: v.kind, usdAmount: opt(v.usdAmount, parseUsd), tokens: opt(v.tokens, parseTokens), expiresAt: new Date(v.expiresAt) };
}

/** order_place: paid (ORDER_PRICE_USD), every check in `prepare` so a refusal charges nothing. */
export function placeOrderEntrypoint(): Entrypoint<PlaceOrderInput, Prepared, OrderView> {
  return {
    kind: 'paid',
    name: 'order_place',
    example: ORDER_EXAMPLES.order_place,
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

export function orderReads() {
  return [
    read({
      operation: 'order_authorization',
      tool: { name: 'prepare_order', title: 'Prepare an order' },
      description:
        "Step 1 of an order: the EIP-712 typed data `wallet` signs — a USDC ReceiveWithAuthorization of exactly usdAmount for a limit_buy, the token's of exactly `tokens` for a stop_loss or take_profit — valid until expiresAt, and the authorization to send to order_place with the `signature` added. Nothing moves until the order executes.",
      summary: 'the EIP-712 typed data a wallet signs before order_place',
      http: { path: '/api/orders/authorization', errors: [404, 409] }, // the token it names not found: 404
      inputSchema: orderAuthorizationQuery,
      outputSchema: orderAuthorizationOutput,
      run: (deps, q) => orderAuthorization(deps, { ...specOf(q), triggerPrice: 1n, wallet: checksummed(q.wallet) }),
    }),
    read({
      operation: 'list_orders',
      tool: { name: 'list_orders', title: "List a wallet's orders" },
      description: "A wallet's orders, newest first (optionally one state): limit buys, stop-losses and take-profits with their state and, once executed, their trade.",
      summary: "a wallet's orders",
      http: { path: '/api/orders' },
      inputSchema: listOrdersQuery,
      outputSchema: ordersOutput,
      run: (deps, q) => listOrders(deps, { wallet: checksummed(q.wallet), state: q.state, limit: q.limit }),
    }),
    read({
      operation: 'get_order',
      tool: { name: 'get_order', title: 'Get an order' },
      description: 'One order by orderId: OPEN (waiting), EXECUTING, EXECUTED (with its tradeId), FAILED (with its reason), CANCELLED or EXPIRED.',
      summary: 'one order and its state',
      http: { path: '/api/orders/:orderId', lookup: true },
      inputSchema: z.strictObject({ orderId: orderIdSchema }),
      outputSchema: orderOutput,
      run: (deps, q) => getOrder(deps, q.orderId),
    }),
    read({
      operation: 'order_book',
      tool: { name: 'get_order_book', title: "A token's order book" },
      description: "A token's OPEN orders by trigger price: limit buys (USD waiting to buy) and stop-losses / take-profits (tokens waiting to sell), with the spot price they are compared with.",
      summary: "a token's open orders by price level",
      http: { path: '/api/tokens/:id/orders', params: { id: 'tokenId' } },
      inputSchema: z.strictObject({ tokenId: tokenIdSchema }),
      outputSchema: orderBookOutput,
      run: (deps, q) => getOrderBook(deps, q.tokenId),
    }),
    read({
      operation: 'cancel_order',
      tool: { name: 'cancel_order', title: 'Cancel an order', readOnly: false },
      description:
        'Cancel an OPEN order, free: prove the order\'s wallet with a SIGN-IN-WITH-X header, or send `signature`, the wallet\'s personal_sign of "Cancel order <orderId>". A cancelled order never executes; its authorization is never used (a wallet that trusts nobody also cancels it on chain: docs/api.md "Orders").',
      summary: 'cancel an OPEN order (its wallet proven)',
      http: { path: '/api/orders/:orderId/cancel', lookup: true, method: 'post', errors: [403, 409] },
      inputSchema: cancelOrderInput,
      outputSchema: orderOutput,
      run: (deps, q, call) => cancelOrder(deps, { orderId: q.orderId, signature: q.signature, provenWallet: call.provenWallet }),
    }),
  ];
}
