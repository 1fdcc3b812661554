/**
 * GET /api/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the server
 * validates with, so the document cannot drift from the behaviour. The operations' paths come from
 * the catalogue (openapi-operations.ts); the routes that are not operations are written here.
 */
import type { AnyRead } from '../../../app/kit/catalogue/operation.js';
import type { AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import { ERROR_STATUS } from '../../../app/kit/error-status.js';
import { eventsQuery } from '../../../app/kit/schemas.js';
import { positionOutput, tokenOutput, tradeOutput } from '../../../app/kit/output-schemas.js';
import type { Settings } from '../../../app/kit/settings.js';
import { embedded as schema, WELL_KNOWN_X402 } from './discovery.js';
import { TRANSPORT_ERROR_STATUS } from './http-errors.js';
import { errorResponse, errors, loose, ok, operationPaths, queryParameters, type Paths } from './openapi-operations.js';
import { PROBES } from './rate-limit.js';

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^tok_[0-9A-HJKMNP-TV-Z]{26}$' } };
/** Where the document says the API is (`servers`), and the MCP endpoint's path and its server card's media type when the service serves MCP. */
export interface OpenApiOptions {
  origin: string;
  mcpPath?: string | undefined;
  /** The media type the server card is served in to a client that asks for it (else JSON). */
  cardMediaType?: string | undefined;
}

const document = (description: string, type = 'application/json') => ({ 200: { description, content: { [type]: { schema: type.endsWith('json') ? loose : { type: 'string' } } } } });

/** The routes that are not operations of the catalogue: health, metrics, documents, the event stream (a data table). */
function servicePaths(): Paths {
  return {
    '/health': { get: { operationId: 'health', responses: { 200: ok('health', loose), 503: errorResponse } } },
    '/livez': { get: { operationId: 'livez', responses: { 200: ok('livez', { type: 'object', properties: { status: { const: 'ok' } } }) } } },
    '/readyz': { get: { operationId: 'readiness', responses: { 200: ok('readiness', loose), 503: errorResponse } } },
    '/metrics': {
      get: { operationId: 'metrics', responses: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { schema: { type: 'string' } } } } } },
    },
    '/entrypoints': { get: { operationId: 'list_entrypoints', responses: { 200: ok('list_entrypoints', { type: 'array', items: loose }) } } },
    '/api/tokens/{id}/metadata.json': {
      get: {
        operationId: 'token_metadata',
        description: 'The token metadata document wallets and explorers read (the document itself, no envelope).',
        parameters: [idParam],
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: loose } } }, ...errors([400, 404, 503]) },
      },
    },
    '/images/{file}': {
      get: {
        operationId: 'token_image_file',
        description:
          "A token's image or thumbnail (`<sha256>.webp`, named by the token's imageUrl and thumbnailUrl): the bytes, cached for ever (immutable, ETag: the hash; If-None-Match answers 304).",
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}\\.webp$' } }],
        responses: {
          200: { description: 'the image', content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } } },
          304: { description: 'Not modified (If-None-Match)' },
          404: errorResponse,
        },
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
        responses: { 200: { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors([400, 503]) },
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
}

/** The error envelope every failing answer carries (a data table). */
const ENVELOPE = {
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
};

const COMPONENTS = {
  schemas: { Token: schema(tokenOutput), Position: schema(positionOutput), Trade: schema(tradeOutput) },
  responses: {
    Error: {
      description: `Error envelope; codes: ${[...Object.keys(ERROR_STATUS), ...Object.keys(TRANSPORT_ERROR_STATUS)].join(', ')}`,
      content: ENVELOPE,
    },
    RateLimited: {
      description: 'RATE_LIMITED: the free budget of this client is spent (docs/rate-limits.md); try again after Retry-After seconds',
      headers: {
        'Retry-After': { description: 'seconds until the budget allows a request again', schema: { type: 'integer' } },
        RateLimit: { description: 'what is left of the budget and when it resets (IETF draft)', schema: { type: 'string' } },
        'RateLimit-Policy': { description: 'the budget: requests per window (IETF draft)', schema: { type: 'string' } },
      },
      content: ENVELOPE,
    },
  },
};

/**
 * What every route may answer besides its own, added to each: 429 where the free budget counts
 * (every route but the operator's probes; the MCP endpoint describes its own), and 500, an
 * unexpected failure (INTERNAL_ERROR, naming the request id).
 */
function everyRoute(paths: Paths, mcpPath: string | undefined): void {
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods) as [string, { responses: Record<string, unknown> }][]) {
      const responses = operation.responses;
      if (!PROBES.has(path) && !(path === mcpPath && method === 'post')) responses[429] = { $ref: '#/components/responses/RateLimited' };
      responses[500] ??= errorResponse;
    }
  }
}

export function openApiDocument(reads: readonly AnyRead[], entrypoints: Iterable<AnyEntrypoint>, settings: Settings, options: OpenApiOptions) {
  const paths = servicePaths();
  if (options.mcpPath) Object.assign(paths, mcpPaths(options.mcpPath, options.cardMediaType ?? 'application/json'));

  operationPaths(paths, reads, entrypoints, settings);
  everyRoute(paths, options.mcpPath);

  return {
    openapi: '3.1.0',
    servers: [{ url: options.origin }],
    info: {
      title: 'x402 token launchpad',
      version: '1',
      description: 'Create and trade tokens on a bonding curve, paying per request with x402 (USDC on Base).',
    },
    paths,
    components: COMPONENTS,
  };
}

/** The MCP endpoint (JSON-RPC 2.0 over Streamable HTTP) and its discovery documents. */
function mcpPaths(mcp: string, cardMediaType: string): Record<string, Record<string, unknown>> {
  const jsonRpc = {
    type: 'object',
    required: ['jsonrpc'],
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: { type: 'string' }, params: loose, result: loose, error: loose },
  };
  const rpcError = (description: string) => ({ description: `${description}: a JSON-RPC error`, content: { 'application/json': { schema: { ...jsonRpc, required: ['jsonrpc', 'error'] } } } });
  const card = () => ({ 200: { description: 'server card', content: { [cardMediaType]: { schema: loose }, 'application/json': { schema: loose } } } });
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
          400: rpcError('not a JSON-RPC message, or one the SDK refuses for its headers'),
          403: errorResponse,
          406: rpcError('Accept must list application/json and text/event-stream'),
          413: errorResponse,
          415: errorResponse,
          429: rpcError('over the free budget (a tools/call answers a RATE_LIMITED tool error instead, HTTP 200)'),
        },
      },
    },
    [`${mcp}/server-card`]: { get: { operationId: 'mcp_server_card', description: `The MCP Server Card (SEP-2127): name, version, endpoint, protocol versions. Served as ${cardMediaType} to a client that asks for it (Accept), else as application/json.`, responses: card() } },
    '/.well-known/mcp/server-card.json': { get: { operationId: 'mcp_server_card_well_known', description: 'The MCP Server Card, at its well-known address (media types as at the reserved path).', responses: card() } },
    '/.well-known/mcp/catalog.json': { get: { operationId: 'mcp_catalog', description: 'The MCP Catalog: the server cards of this origin.', responses: document('MCP catalog') } },
    '/.well-known/mcp.json': { get: { operationId: 'mcp_document', description: 'The server card with every tool, its price, and how a call is paid.', responses: document('MCP discovery document') } },
  };
}
