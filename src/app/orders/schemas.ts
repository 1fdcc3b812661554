/**
 * The orders' request and answer schemas (docs/api.md "Orders"), beside the rest of the catalogue's
 * (kit/schemas.ts, kit/output-schemas.ts): the single source of their checks, OpenAPI, MCP tools and page types.
 */
import { receiveAuthorizationTypedData } from '../kit/output-schemas.js';
import { z } from 'zod';
import { formatUsd, MAX_USD_INPUT, USDC_UNIT } from '../../domain/money.js';
import { ORDER_KINDS, PRICE_DECIMALS } from '../../domain/order.js';
import { decimalString, networkSchema, tokenAuthorizationSchema, tokenIdSchema, tokenString, usdString, walletSchema, wholeNumber } from '../kit/schemas.js';

export const orderIdSchema = z.string().regex(/^ord_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an order id (ord_ + 26-character ULID)');
const kind = z.enum(ORDER_KINDS).meta({ description: 'limit_buy (spend usdAmount at or below the trigger), stop_loss (sell tokens at or below), take_profit (sell tokens at or above)' });

// One whole token at most the USD any amount may be; a token's own reach is checked with the token (checkSpec).
const price = decimalString(PRICE_DECIMALS, `USD per whole token (decimal string, ≤ 18 decimals), more than 0, at most ${formatUsd(MAX_USD_INPUT)}`, {
  units: (MAX_USD_INPUT / USDC_UNIT) * 10n ** BigInt(PRICE_DECIMALS),
  says: `must be at most ${formatUsd(MAX_USD_INPUT)} USD per token`,
});

const expiresAt = z.iso.datetime().meta({ description: 'ISO time, at most 30 days ahead; the authorization must stay valid until then' });

/** What an order is, as both the authorization read and order_place take it. */
const orderFields = {
  tokenId: tokenIdSchema,
  kind,
  usdAmount: usdString('limit_buy: USD to spend, fee included (the authorization moves exactly this USDC)').optional(),
  tokens: tokenString('stop_loss / take_profit: tokens to sell (the authorization moves exactly these)').optional(),
  expiresAt,
};

export const orderAuthorizationQuery = z.strictObject({ wallet: walletSchema, ...orderFields });

export const placeOrderInput = z.strictObject({
  ...orderFields,
  triggerPriceUsd: price,
  minTokensOut: tokenString('limit_buy: least tokens to accept at execution (else the order waits)').optional(),
  minUsdOut: usdString('stop_loss / take_profit: least USD to receive after the fee at execution (else the order waits)').optional(),
  authorization: tokenAuthorizationSchema.meta({
    description: 'the signed ReceiveWithAuthorization from GET /api/orders/authorization: USDC for a limit_buy, the token for a sell; held unused until the order executes',
  }),
});

export const listOrdersQuery = z.strictObject({
  wallet: walletSchema,
  state: z.enum(['OPEN', 'EXECUTING', 'EXECUTED', 'FAILED', 'CANCELLED', 'EXPIRED']).optional(),
  limit: wholeNumber(1, 100).default(50),
});

export const cancelOrderInput = z.strictObject({
  orderId: orderIdSchema,
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature as 0x-hex')
    .optional()
    .meta({ description: 'the order wallet\'s personal_sign of "Cancel order <orderId>" (or prove the wallet with SIGN-IN-WITH-X instead)' }),
});

const nullable = z.string().nullable();
export const orderOutput = z.object({
  orderId: z.string(),
  tokenId: z.string(),
  network: networkSchema,
  wallet: z.string(),
  kind,
  state: z.enum(['OPEN', 'EXECUTING', 'EXECUTED', 'FAILED', 'CANCELLED', 'EXPIRED']),
  triggerPriceUsd: z.string(),
  usdAmount: nullable,
  tokens: nullable,
  minTokensOut: nullable,
  minUsdOut: nullable,
  asset: z.enum(['USDC', 'EURC', 'TOKEN']),
  authorization: z.object({ from: z.string(), nonce: z.string(), validBefore: z.string() }).meta({ description: 'the held authorization: its nonce is what cancelAuthorization cancels on chain' }),
  expiresAt: z.string(),
  reason: nullable.meta({ description: 'why it FAILED (e.g. unusable:balance) or was CANCELLED / EXPIRED' }),
  tradeId: nullable,
  paymentId: nullable,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ordersOutput = z.object({ wallet: z.string(), orders: z.array(orderOutput) });

const level = z.object({ kind, triggerPriceUsd: z.string(), orders: z.number(), usdAmount: z.string().optional(), tokens: z.string().optional() });
export const orderBookOutput = z.object({
  tokenId: z.string(),
  spotPriceUsd: nullable,
  buys: z.array(level),
  sells: z.array(level),
});

const message = tokenAuthorizationSchema.omit({ signature: true });
export const orderAuthorizationOutput = z.object({
  tokenId: z.string(),
  network: networkSchema,
  kind,
  expiresAt: z.string(),
  typedData: receiveAuthorizationTypedData,
  authorization: message.meta({ description: "send this as order_place's authorization, with `signature` added" }),
});
