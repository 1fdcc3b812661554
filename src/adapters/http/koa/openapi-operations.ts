/**
 * The OpenAPI paths of the catalogue's operations (src/app/catalogue), by loops: a free read's
 * path and query parameters from its input schema, a paid operation's body, its x402 headers and
 * price. The rest of the document (openapi.ts) describes the routes that are not operations.
 */
import type { z } from 'zod';
import type { AnyRead } from '../../../app/kit/catalogue/operation.js';
import { pathParams } from '../../../app/kit/catalogue/operation.js';
import { entrypointPaths, type AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import type { Settings } from '../../../app/kit/settings.js';
import { discoveryPrice, embedded as schema } from './discovery.js';
import { openApiPath, queryOf } from './read-routes.js';

type JsonSchema = Record<string, unknown>;
export type Paths = Record<string, Record<string, unknown>>;

export const errorResponse = { $ref: '#/components/responses/Error' };
export const loose = { type: 'object' };

/** Each status, answered with the error envelope. */
export const errors = (statuses: readonly number[]) => Object.fromEntries([...new Set(statuses)].sort().map((s) => [s, errorResponse]));

/** What a route that reads a JSON body answers before its operation runs: a body too large (413), not declared JSON (415). */
export const BODY_REFUSALS = [413, 415] as const;

/**
 * What every operation of the catalogue may answer besides its own: the store or a chain out of
 * reach (503 SERVICE_UNAVAILABLE, with Retry-After). The free budget's 429 and an unexpected 500
 * are every route's (openapi.ts adds them).
 */
const OUTAGE = 503;

/**
 * What every paid operation answers: its input refused (400), the 402 (or a payment refused),
 * a foreign origin or Host (403), what it names not found (404), a rule (409), the body (413,
 * 415), the facilitator failing (502), an outage (503) — and its own (`Entrypoint.errors`).
 */
const PAID_STATUSES = [400, 402, 403, 404, 409, ...BODY_REFUSALS, 502, OUTAGE] as const;

const envelope = (operation: string, data: JsonSchema) => ({
  type: 'object',
  required: ['success', 'operation', 'data'],
  properties: { success: { const: true }, operation: { const: operation }, data },
});

export const ok = (operation: string, data: JsonSchema, description = 'OK') => ({
  description,
  content: { 'application/json': { schema: envelope(operation, data) } },
});

/** The Sign-In-With-X header (x402 extension, CAIP-122), where a request may prove its wallet. */
export function siwxHeader(description: string) {
  return { name: 'SIGN-IN-WITH-X', in: 'header', required: false, schema: { type: 'string' }, description: `base64 CAIP-122 wallet proof: ${description}` };
}

export function queryParameters(s: z.ZodObject) {
  const json = schema(s, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, prop]) => ({ name, in: 'query', required: json.required?.includes(name) ?? false, schema: prop }));
}

/** A free read: GET, its path parameters, then its query parameters. */
function readOperation(op: AnyRead) {
  const params = pathParams(op.http);
  const query = queryOf(op);
  const parameters = [
    ...params.map(([name, field]) => ({ name, in: 'path', required: true, schema: schema(op.inputSchema.shape[field] as z.ZodType, 'input') })),
    ...(query ? queryParameters(query) : []),
    ...(op.http.walletProof ? [siwxHeader(`proves the wallet: \`${op.http.walletProof}\` may then be omitted`)] : []),
  ];
  const statuses = [...(query || (params.length > 0 && !op.http.lookup) ? [400] : []), ...(params.length > 0 ? [404] : []), ...(op.http.errors ?? []), OUTAGE];
  return {
    operationId: op.operation,
    description: op.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { 200: ok(op.operation, schema(op.outputSchema)), ...errors(statuses) },
  };
}

/** A free operation that changes something: POST of its input (less the path parameters) as JSON. */
function postOperation(op: AnyRead) {
  const params = pathParams(op.http);
  const fromPath = Object.fromEntries(params.map(([, field]) => [field, true] as const));
  return {
    operationId: op.operation,
    description: op.description,
    parameters: [
      ...params.map(([name, field]) => ({ name, in: 'path', required: true, schema: schema(op.inputSchema.shape[field] as z.ZodType, 'input') })),
      op.http.proofRequired ? { ...siwxHeader('proves the wallet this action is done as: required'), required: true } : siwxHeader('proves the wallet that may do this'),
    ],
    requestBody: { required: false, content: { 'application/json': { schema: schema(op.inputSchema.omit(fromPath), 'input') } } },
    responses: { 200: ok(op.operation, schema(op.outputSchema)), ...errors([400, 404, ...BODY_REFUSALS, ...(op.http.errors ?? []), OUTAGE]) },
  };
}

/** A paid operation: POST of its input (or `{ input }`), paid with x402, at each of its paths. */
function paidOperation(e: AnyEntrypoint, settings: Settings) {
  const input = schema(e.inputSchema, 'input');
  return {
    operationId: e.name,
    summary: e.description,
    description: `Paid with x402 (USDC on Base): price ${e.price(settings)}. Without PAYMENT-SIGNATURE the answer is 402 with PAYMENT-REQUIRED.`,
    parameters: [
      { name: 'PAYMENT-SIGNATURE', in: 'header', required: false, schema: { type: 'string' }, description: 'base64 x402 v2 payment payload' },
      { name: 'X-PAYMENT', in: 'header', required: false, schema: { type: 'string' }, description: 'base64 x402 v1 payment payload (answered with X-PAYMENT-RESPONSE)' },
      { name: 'X-Wallet-Address', in: 'header', required: false, schema: { type: 'string' }, description: 'the paying wallet, to be offered its network' },
      siwxHeader('the wallet, proven: offered its network; redeems paid access (token_info)'),
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { oneOf: [input, { type: 'object', required: ['input'], properties: { input } }] } } },
    },
    responses: {
      [e.successStatus]: ok(e.operation, schema(e.outputSchema)),
      202: ok('payment_pending', loose, 'settlement outcome pending; poll /api/payments/{paymentId}'),
      ...errors([...PAID_STATUSES, ...(e.errors ?? [])]),
    },
    'x-price': e.price(settings),
    // The payment metadata discovery crawlers (x402scan) read from OpenAPI.
    'x-payment-info': { protocols: [{ x402: {} }], price: discoveryPrice(e, settings) },
  };
}

/** Each operation's paths, added to `paths` (a path may hold a read and a paid operation: GET and POST /tokens). */
export function operationPaths(paths: Paths, reads: readonly AnyRead[], entrypoints: Iterable<AnyEntrypoint>, settings: Settings): void {
  const add = (path: string, method: string, operation: unknown) => (paths[path] = { ...(paths[path] ?? {}), [method]: operation });
  for (const op of reads) add(openApiPath(op.http.path), op.http.method ?? 'get', op.http.method === 'post' ? postOperation(op) : readOperation(op));
  for (const e of entrypoints) {
    const operation = paidOperation(e, settings);
    for (const path of entrypointPaths(e)) {
      const suffix = path.endsWith('/invoke') ? '_invoke' : path === e.alsoAt ? `_${path.replace(/^\//, '').replace(/\W/g, '_')}` : '';
      add(path, 'post', { ...operation, operationId: `${e.name}${suffix}` });
    }
  }
  // One GET for every paid entrypoint: the cooperative refund.
  add('/entrypoints/{name}', 'get', REFUND_OPERATION);
}

/** A GET of a paid entrypoint's URL: the batch-settlement scheme's cooperative refund (docs/payments.md "Pay once, call many"). */
const REFUND_OPERATION = {
  operationId: 'channel_refund',
  summary: 'batch-settlement cooperative refund of a payment channel',
  description:
    "The x402 batch-settlement scheme's cooperative refund, as the official client's `refund(url)` asks it: without PAYMENT-SIGNATURE, 402 with the scheme's offers (`?network=&asset=` narrows them to one channel's); with a refund payload (the payer authorizer's voucher of what was charged), the channel's unclaimed charges are claimed and the rest of its deposit is paid back, the transaction in PAYMENT-RESPONSE.",
  parameters: [
    { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'any paid entrypoint' },
    { name: 'network', in: 'query', required: false, schema: { type: 'string' }, description: 'CAIP-2 network of the channel (default: every network, Base first)' },
    { name: 'asset', in: 'query', required: false, schema: { type: 'string', enum: ['USDC', 'EURC'] }, description: "the channel's asset" },
    { name: 'PAYMENT-SIGNATURE', in: 'header', required: false, schema: { type: 'string' }, description: 'base64 x402 v2 payment payload of type "refund"' },
  ],
  responses: { 200: { description: 'refunded; PAYMENT-RESPONSE names the transaction', content: { 'application/json': { schema: { type: 'object' } } } }, 402: errorResponse, 405: errorResponse, 503: errorResponse },
};
