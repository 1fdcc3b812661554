/**
 * GET /api/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the server
 * validates with, so the document cannot drift from the behaviour.
 */
import type { z } from 'zod';
import type { AnyEntrypoint } from '../../../app/entrypoints.js';
import { ERROR_STATUS } from '../../../app/error-status.js';
import { TRANSPORT_ERROR_STATUS } from './http-errors.js';
import {
  candlesOutput,
  candlesQuery,
  creatorsQuery,
  deliveryOutput,
  eventsQuery,
  holdersOutput,
  holdersQuery,
  listTokensQuery,
  paymentOutput,
  payoutOutput,
  positionOutput,
  positionsQuery,
  pricesOutput,
  quoteOutput,
  quoteQuery,
  sellAuthorizationOutput,
  sellAuthorizationQuery,
  tokenOutput,
  tradeOutput,
  tradesQuery,
} from '../../../app/schemas.js';
import type { Settings } from '../../../app/settings.js';
import { discoveryPrice, embedded, WELL_KNOWN_X402 } from './discovery.js';

type JsonSchema = Record<string, unknown>;
const schema = embedded;

/** The Sign-In-With-X header (x402 extension, CAIP-122), where a request may prove its wallet. */
function siwxHeader(description: string) {
  return { name: 'SIGN-IN-WITH-X', in: 'header', required: false, schema: { type: 'string' }, description: `base64 CAIP-122 wallet proof: ${description}` };
}

function queryParameters(s: z.ZodObject) {
  const json = schema(s, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, prop]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: prop,
  }));
}

const envelope = (operation: string, data: JsonSchema) => ({
  type: 'object',
  required: ['success', 'operation', 'data'],
  properties: { success: { const: true }, operation: { const: operation }, data },
});

const errorResponse = { $ref: '#/components/responses/Error' };
const ok = (operation: string, data: JsonSchema, description = 'OK') => ({
  description,
  content: { 'application/json': { schema: envelope(operation, data) } },
});
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^tok_[0-9A-HJKMNP-TV-Z]{26}$' } };
const loose = { type: 'object' };
/** Where the document says the API is (`servers`), and the MCP endpoint's path when the service serves MCP. */
export interface OpenApiOptions {
  origin: string;
  mcpPath?: string | undefined;
}

const byId = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
const document = (description: string, type = 'application/json') => ({ 200: { description, content: { [type]: { schema: type.endsWith('json') ? loose : { type: 'string' } } } } });

export function openApiDocument(entrypoints: Iterable<AnyEntrypoint>, settings: Settings, options: OpenApiOptions) {
  const paths: Record<string, Record<string, unknown>> = {
    '/health': { get: { operationId: 'health', responses: { 200: ok('health', loose), 503: errorResponse } } },
    '/livez': { get: { operationId: 'livez', responses: { 200: ok('livez', { type: 'object', properties: { status: { const: 'ok' } } }) } } },
    '/readyz': { get: { operationId: 'readiness', responses: { 200: ok('readiness', loose), 503: errorResponse } } },
    '/metrics': {
      get: { operationId: 'metrics', responses: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { schema: { type: 'string' } } } } } },
    },
    '/tokens': {
      get: {
        operationId: 'list_tokens',
        parameters: queryParameters(listTokensQuery),
        responses: {
          200: ok('list_tokens', {
            type: 'object',
            properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Token' } }, nextCursor: { type: ['string', 'null'] } },
          }),
          400: errorResponse,
        },
      },
    },
    '/tokens/{id}': {
      get: { operationId: 'get_token', parameters: [idParam], responses: { 200: ok('get_token', { $ref: '#/components/schemas/Token' }), 404: errorResponse } },
    },
    '/positions': {
      get: {
        operationId: 'list_positions',
        parameters: [...queryParameters(positionsQuery), siwxHeader('proves the wallet: `wallet` may then be omitted')],
        responses: {
          200: ok('list_positions', {
            type: 'object',
            properties: {
              wallet: { type: 'string' },
              network: { type: 'string' },
              items: { type: 'array', items: { $ref: '#/components/schemas/Position' } },
              totals: loose,
              indexer: loose,
            },
          }),
          400: errorResponse,
        },
      },
    },
    '/entrypoints': { get: { operationId: 'list_entrypoints', responses: { 200: ok('list_entrypoints', { type: 'array', items: loose }) } } },
    '/api/quote': { get: { operationId: 'quote', parameters: queryParameters(quoteQuery), responses: { 200: ok('quote', schema(quoteOutput)), 400: errorResponse, 404: errorResponse } } },
    '/api/tokens/{id}/trades': {
      get: {
        operationId: 'list_trades',
        parameters: [idParam, ...queryParameters(tradesQuery)],
        responses: {
          200: ok('list_trades', {
            type: 'object',
            properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Trade' } }, nextCursor: { type: ['string', 'null'] } },
          }),
          404: errorResponse,
        },
      },
    },
    '/api/tokens/{id}/candles': {
      get: { operationId: 'candles', parameters: [idParam, ...queryParameters(candlesQuery)], responses: { 200: ok('candles', schema(candlesOutput)), 404: errorResponse } },
    },
    '/api/tokens/{id}/holders': {
      get: { operationId: 'holders', parameters: [idParam, ...queryParameters(holdersQuery)], responses: { 200: ok('holders', schema(holdersOutput)), 404: errorResponse } },
    },
    '/api/tokens/{id}/sell-authorization': {
      get: {
        operationId: 'sell_authorization',
        description:
          "The EIP-712 typed data `wallet` signs so custody may pull `tokens` of the token for a sell (a fresh nonce, valid 10 minutes), and the tokenAuthorization to send to token_sell with the signature added.",
        parameters: [idParam, ...queryParameters(sellAuthorizationQuery)],
        responses: { 200: ok('sell_authorization', schema(sellAuthorizationOutput)), 400: errorResponse, 404: errorResponse, 409: errorResponse },
      },
    },
    '/api/tokens/{id}/metadata.json': {
      get: {
        operationId: 'token_metadata',
        description: 'The token metadata document wallets and explorers read (the document itself, no envelope).',
        parameters: [idParam],
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: loose } } }, 404: errorResponse },
      },
    },
    '/api/wallets/{address}/earnings': {
      get: {
        operationId: 'earnings',
        description: "A wallet's fee shares as creator or referrer: accrued, paid (confirmed on chain) and pending, by token and role.",
        parameters: [{ name: 'address', in: 'path', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } }],
        responses: { 200: ok('earnings', loose), 400: errorResponse },
      },
    },
    '/api/creators': {
      get: { operationId: 'creators', description: 'Creators ranked by what they earned.', parameters: queryParameters(creatorsQuery), responses: { 200: ok('creators', loose), 400: errorResponse } },
    },
    '/api/stats': { get: { operationId: 'stats', responses: { 200: ok('stats', loose) } } },
    '/api/prices': {
      get: {
        operationId: 'prices',
        description: 'USD price of each payment asset per network from the quote router (median of fresh answers), every source asked with its answer and age, and each source\'s limit and breaker state.',
        responses: { 200: ok('prices', schema(pricesOutput)) },
      },
    },
    '/api/payments/{paymentId}': {
      get: {
        operationId: 'get_payment',
        parameters: [byId('paymentId', 'from a paid answer, or its 202 "pending"')],
        responses: { 200: ok('get_payment', schema(paymentOutput)), 404: errorResponse },
      },
    },
    '/api/payouts/{payoutId}': {
      get: {
        operationId: 'get_payout',
        parameters: [byId('payoutId', "a sell's `payout.payoutId`, or a refund's")],
        responses: { 200: ok('get_payout', schema(payoutOutput)), 404: errorResponse },
      },
    },
    '/api/deliveries/{deliveryId}': {
      get: {
        operationId: 'get_delivery',
        description: "Where a buy's tokens are on their way from custody to the buyer's wallet.",
        parameters: [byId('deliveryId', "a buy's `delivery.deliveryId`")],
        responses: { 200: ok('get_delivery', schema(deliveryOutput)), 404: errorResponse },
      },
    },
    '/api/openapi.json': { get: { operationId: 'openapi', description: 'This document.', responses: document('OpenAPI 3.1 document') } },
    '/openapi.json': {
      get: { operationId: 'openapi_redirect', description: 'Where tools look first: a permanent redirect to `/api/openapi.json`.', responses: { 308: { description: 'Location: /api/openapi.json' } } },
    },
    '/llms.txt': {
      get: { operationId: 'llms_txt', description: 'What the service is, how to pay, the MCP tools and the endpoints, for language models (llms.txt).', responses: document('llms.txt', 'text/markdown') },
    },
    '/api/events': {
      get: {
        operationId: 'events',
        description: 'Server-Sent Events from the event log; resume with Last-Event-ID.',
        parameters: queryParameters(eventsQuery),
        responses: { 200: { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      },
    },
    '/api/version': { get: { operationId: 'version', responses: { 200: ok('version', loose) } } },
    [WELL_KNOWN_X402]: {
      get: {
        operationId: 'x402_discovery',
        description: 'x402 discovery document: every paid resource (x402scan `version`/`resources`) with its price, requirements and Bazaar metadata (`items`).',
        responses: { 200: { description: 'discovery document', content: { 'application/json': { schema: loose } } } },
      },
    },
  };

  if (options.mcpPath) Object.assign(paths, mcpPaths(options.mcpPath));

  for (const e of entrypoints) {
    const operation = {
      operationId: e.name,
      summary: e.description,
      description: `Paid with x402 (USDC on Base): price ${e.price(settings)}. Without PAYMENT-SIGNATURE the answer is 402 with PAYMENT-REQUIRED.`,
      parameters: [
        { name: 'PAYMENT-SIGNATURE', in: 'header', required: false, schema: { type: 'string' }, description: 'base64 x402 v2 payment payload' },
        { name: 'X-Wallet-Address', in: 'header', required: false, schema: { type: 'string' }, description: 'the paying wallet, to be offered its network' },
        siwxHeader('the wallet, proven: offered its network; redeems paid access (token_info)'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { oneOf: [schema(e.inputSchema, 'input'), { type: 'object', required: ['input'], properties: { input: schema(e.inputSchema, 'input') } }] },
          },
        },
      },
      responses: {
        [e.successStatus]: ok(e.operation, schema(e.outputSchema)),
        202: ok('payment_pending', loose, 'settlement outcome pending; poll /api/payments/{paymentId}'),
        400: errorResponse,
        402: errorResponse,
        403: errorResponse,
        404: errorResponse,
        409: errorResponse,
      },
      'x-price': e.price(settings),
      // The payment metadata discovery crawlers (x402scan) read from OpenAPI.
      'x-payment-info': { protocols: [{ x402: {} }], price: discoveryPrice(e, settings) },
    };
    const routes = e.name === 'token_create' ? ['/tokens', `/entrypoints/${e.name}`, `/entrypoints/${e.name}/invoke`] : [`/entrypoints/${e.name}`, `/entrypoints/${e.name}/invoke`];
    for (const route of routes) paths[route] = { ...(paths[route] ?? {}), post: { ...operation, operationId: `${e.name}${route.endsWith('/invoke') ? '_invoke' : route === '/tokens' ? '_tokens' : ''}` } };
  }

  return {
    openapi: '3.1.0',
    servers: [{ url: options.origin }],
    info: {
      title: 'x402 token launchpad',
      version: '1',
      description: 'Create and trade tokens on a bonding curve, paying per request with x402 (USDC on Base).',
    },
    paths,
    components: {
      schemas: { Token: schema(tokenOutput), Position: schema(positionOutput), Trade: schema(tradeOutput) },
      responses: {
        Error: {
          description: `Error envelope; codes: ${[...Object.keys(ERROR_STATUS), ...Object.keys(TRANSPORT_ERROR_STATUS)].join(', ')}`,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['success', 'error'],
                properties: {
                  success: { const: false },
                  error: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** The MCP endpoint (JSON-RPC 2.0 over Streamable HTTP) and its discovery documents. */
function mcpPaths(mcp: string): Record<string, Record<string, unknown>> {
  const jsonRpc = {
    type: 'object',
    required: ['jsonrpc'],
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: { type: 'string' }, params: loose, result: loose, error: loose },
  };
  return {
    [mcp]: {
      post: {
        operationId: 'mcp',
        summary: 'MCP (Model Context Protocol) endpoint: Streamable HTTP, stateless, JSON answers',
        description:
          'JSON-RPC 2.0 messages of MCP: initialize, tools/list, tools/call, resources (launchpad://token/{tokenId}), prompts, logging/setLevel. Paid tools use the x402 MCP transport: the unpaid call answers a tool result with isError and the PaymentRequired in structuredContent; the paid call carries the PaymentPayload in params._meta["x402/payment"]. Send `Accept: application/json, text/event-stream`. Every POST counts against the free budget except a paid call whose payment verifies. See /llms.txt and docs/agents.md.',
        requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [jsonRpc, { type: 'array', items: jsonRpc }] } } } },
        responses: {
          200: { description: 'JSON-RPC response(s)', content: { 'application/json': { schema: { oneOf: [jsonRpc, { type: 'array', items: jsonRpc }] } } } },
          202: { description: 'notifications accepted' },
          400: { description: 'not a JSON-RPC message (JSON-RPC error)' },
          403: errorResponse,
          406: { description: 'Accept must list application/json and text/event-stream' },
          413: errorResponse,
          415: errorResponse,
          429: { description: 'over the free budget (JSON-RPC error; a tools/call answers a RATE_LIMITED tool error instead)' },
        },
      },
    },
    [`${mcp}/server-card`]: { get: { operationId: 'mcp_server_card', description: 'The MCP Server Card (SEP-2127): name, version, endpoint, protocol versions.', responses: document('server card') } },
    '/.well-known/mcp/server-card.json': { get: { operationId: 'mcp_server_card_well_known', description: 'The MCP Server Card, at its well-known address.', responses: document('server card') } },
    '/.well-known/mcp/catalog.json': { get: { operationId: 'mcp_catalog', description: 'The MCP Catalog: the server cards of this origin.', responses: document('MCP catalog') } },
    '/.well-known/mcp.json': { get: { operationId: 'mcp_document', description: 'The server card with every tool, its price, and how a call is paid.', responses: document('MCP discovery document') } },
  };
}
