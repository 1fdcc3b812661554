/**
 * GET /api/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the server
 * validates with, so the document cannot drift from the behaviour.
 */
import type { z } from 'zod';
import type { AnyEntrypoint } from '../../../app/entrypoints.js';
import { ERROR_STATUS } from '../../../app/error-status.js';
import { TRANSPORT_ERROR_STATUS } from './http-errors.js';
import {
  candlesQuery,
  creatorsQuery,
  eventsQuery,
  holdersQuery,
  listTokensQuery,
  positionOutput,
  positionsQuery,
  quoteQuery,
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
const nullable = (type: string) => ({ type: [type, 'null'] });
const PRICES = {
  type: 'object',
  required: ['prices', 'providers', 'policy'],
  properties: {
    prices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['asset', 'network', 'usdPrice', 'provider', 'observedAt', 'ageSeconds', 'error', 'answers'],
        properties: {
          asset: { enum: ['USDC', 'EURC', 'ETH'] },
          network: { type: 'string' },
          usdPrice: { ...nullable('string'), description: 'decimal string; null when no fresh answer is left' },
          provider: { ...nullable('string'), description: 'median(<sources kept>)' },
          observedAt: nullable('string'),
          ageSeconds: nullable('integer'),
          belowDepegFloor: { ...nullable('boolean'), description: 'USDC only: priced from its quote instead of 1:1' },
          error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
          answers: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                provider: { type: 'string' },
                status: { enum: ['ok', 'stale', 'outlier', 'failed', 'skipped'] },
                usdPrice: nullable('string'),
                observedAt: nullable('string'),
                ageSeconds: nullable('integer'),
                reason: nullable('string'),
              },
            },
          },
        },
      },
    },
    providers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          limit: {
            type: 'object',
            properties: { points: { type: 'integer' }, durationSeconds: { type: 'integer' }, maxQueueSize: { type: 'integer' }, remaining: { type: 'integer' } },
          },
          timeoutMs: { type: 'integer' },
          breaker: {
            type: 'object',
            properties: { state: { enum: ['closed', 'open', 'half-open'] }, consecutiveFailures: { type: 'integer' }, openUntil: nullable('string') },
          },
          rateLimitedUntil: nullable('string'),
          lastFailure: { type: ['object', 'null'] },
        },
      },
    },
    policy: loose,
  },
};

export function openApiDocument(entrypoints: Iterable<AnyEntrypoint>, settings: Settings) {
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
    '/api/quote': { get: { operationId: 'quote', parameters: queryParameters(quoteQuery), responses: { 200: ok('quote', loose), 400: errorResponse, 404: errorResponse } } },
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
      get: { operationId: 'candles', parameters: [idParam, ...queryParameters(candlesQuery)], responses: { 200: ok('candles', loose), 404: errorResponse } },
    },
    '/api/tokens/{id}/holders': {
      get: { operationId: 'holders', parameters: [idParam, ...queryParameters(holdersQuery)], responses: { 200: ok('holders', loose), 404: errorResponse } },
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
        responses: { 200: ok('prices', PRICES) },
      },
    },
    '/api/payments/{paymentId}': {
      get: {
        operationId: 'get_payment',
        parameters: [{ name: 'paymentId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: ok('get_payment', loose), 404: errorResponse },
      },
    },
    '/api/payouts/{payoutId}': {
      get: {
        operationId: 'get_payout',
        parameters: [{ name: 'payoutId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: ok('get_payout', loose), 404: errorResponse },
      },
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
