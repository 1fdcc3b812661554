/**
 * `POST /mcp`: MCP over Streamable HTTP (the official SDK v2, @modelcontextprotocol/server),
 * stateless — every request gets its own server, so any process behind one database answers any
 * request (decisions 0029 and 0071). Both protocol eras are served at the one path:
 *
 * - 2026-07-28 (a request carries the per-request `_meta` envelope): the SDK's `createMcpHandler`,
 *   which answers plain JSON unless a handler streams (ours do not; `subscriptions/listen` is a
 *   short SSE stream: we declare no list changes to listen to);
 * - the 2025 revisions (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: `initialize`, then requests
 *   without the envelope): a server on the SDK's stateless Streamable HTTP transport answering
 *   plain JSON, as before v2. `isLegacyRequest` — the handler's own classification — tells them
 *   apart.
 *
 * The HTTP adapter mounts it with web-standard `Request`/`Response`; this adapter knows no Koa.
 *
 * The free budget (docs/rate-limits.md) holds here as over HTTP: every POST counts once, except a
 * paid tool call whose payment the facilitator verified. A call over the budget is answered as a
 * tool error (RATE_LIMITED, so the agent reads when to come back); any other message with HTTP 429.
 */
import { createMcpHandler, isLegacyRequest, Server, WebStandardStreamableHTTPServerTransport, type McpHttpHandler } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Application } from '../../../app/application.js';
import { errorEnvelope } from '../../../app/kit/error-status.js';
import { RateLimited } from '../../../domain/errors.js';
import type { RateLimitDecision, RateLimiter } from '../../../ports/rate-limiter.js';
import { PAYMENT_META, WALLET_META } from '../../kit/mcp/x402-mcp.js';
import { registerAgentPrompts } from './agent-prompts.js';
import { McpCatalogue } from './mcp-catalogue.js';
import { registerTokenResources } from './token-resources.js';
import { ToolCalls, type CallContext } from './tool-calls.js';
import { domainErrorResult } from './tool-results.js';

export const MCP_PATH = '/mcp';

export interface FreeBudget {
  limiter: RateLimiter;
  limit: number;
  windowSeconds: number;
}

export interface McpRequestInfo {
  /** The rate-limit key of the client (its address, or its /64). */
  client: string;
  requestId: string;
}

export class McpEndpoint {
  readonly path = MCP_PATH;
  readonly calls: ToolCalls;
  /** What agents read about this endpoint, served by the HTTP adapter. */
  readonly documents: McpCatalogue;
  private readonly validator = new AjvJsonSchemaValidator();
  /** The 2026-07-28 leg; 2025-era requests never reach it (`legacy: 'reject'`: they are served below). */
  private readonly modern: McpHttpHandler;
  /** The call context of each request in flight, for the server the modern leg makes for it. */
  private readonly contexts = new WeakMap<Request, CallContext>();

  constructor(
    private readonly application: Application,
    private readonly budget: FreeBudget | null = null,
  ) {
    this.calls = new ToolCalls(application);
    this.documents = new McpCatalogue(application.entrypoints, this.path, application.deps.settings);
    this.modern = createMcpHandler(
      ({ requestInfo }) => {
        const ctx = requestInfo ? this.contexts.get(requestInfo) : undefined;
        if (!ctx) throw new Error('an MCP request without its call context');
        return this.server(ctx);
      },
      { legacy: 'reject', onerror: (e) => this.application.logger.debug('MCP request refused', { error: e.message }) },
    );
  }

  /** One HTTP request to the endpoint, its JSON body already read. */
  async handle(request: Request, body: unknown, info: McpRequestInfo): Promise<Response> {
    const single = body && typeof body === 'object' && !Array.isArray(body) ? (body as JsonRpcMessage) : null;
    const paidCall = single?.method === 'tools/call' && this.calls.carriesPayment(single.params ?? {});
    const headers = new Headers();
    const legacy = await isLegacyRequest(request, body);
    if (!paidCall) {
      const decision = await this.consume(info.client, headers);
      if (decision && !decision.allowed) return this.rateLimited(single, decision, headers, legacy);
    }
    const ctx: CallContext = { requestId: info.requestId, paymentVerified: false };
    try {
      const response = await this.serve(request, body, ctx, legacy);
      headers.forEach((value, key) => response.headers.set(key, value));
      return response;
    } finally {
      if (paidCall && !ctx.paymentVerified) await this.consume(info.client, headers);
    }
  }

  private async serve(request: Request, body: unknown, ctx: CallContext, legacy: boolean): Promise<Response> {
    if (!legacy) {
      this.contexts.set(request, ctx);
      return this.modern.fetch(request, { parsedBody: body });
    }
    // A 2025-era request: one server on the stateless transport, answering JSON (no SSE stream).
    const server = this.server(ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
  }

  /** The server of one request, either era: the tools, resources and prompts over `ctx`. */
  private server(ctx: CallContext): Server {
    const server = new Server(
      { name: 'x402-launchpad', title: 'x402 token launchpad', version: this.application.deps.settings.serviceVersion },
      // logging: setLevel is taken on the 2025 revisions (2026-07-28 has none); a stateless JSON answer has no stream to send log messages on (decision 0042).
      { capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: this.validator },
    );
    registerTokenResources(server, this.application);
    registerAgentPrompts(server, this.application);
    server.setRequestHandler('tools/list', () => ({ tools: this.calls.listing }));
    server.setRequestHandler('tools/call', (req) => this.calls.call(req.params, ctx));
    return server;
  }

  private async consume(client: string, headers: Headers): Promise<RateLimitDecision | null> {
    if (!this.budget) return null;
    const decision = await this.budget.limiter.consume(client);
    headers.set('RateLimit-Policy', `"free";q=${this.budget.limit};w=${this.budget.windowSeconds}`);
    headers.set('RateLimit', `"free";r=${decision.remaining};t=${decision.resetSeconds}`);
    return decision;
  }

  private rateLimited(message: JsonRpcMessage | null, decision: RateLimitDecision, headers: Headers, legacy: boolean): Response {
    const retryAfter = Math.max(1, decision.resetSeconds);
    const error = new RateLimited(this.budget!.limit, this.budget!.windowSeconds, retryAfter);
    headers.set('Retry-After', String(retryAfter));
    headers.set('Content-Type', 'application/json');
    const id = message?.id ?? null;
    if (message?.method === 'tools/call' && id !== null) {
      // A 2026-07-28 result names its kind (resultType); a 2025-era one has no such field.
      const result = { ...domainErrorResult(error), ...(legacy ? {} : { resultType: 'complete' }) };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { status: 200, headers });
    }
    const envelope = errorEnvelope(error.code, error.message, error.details);
    return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: error.message, data: envelope.error } }), { status: 429, headers });
  }
}

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: { name?: unknown; _meta?: unknown };
}

const INSTRUCTIONS = [
  'An x402 token launchpad: create ERC-20 tokens on a bonding curve and trade them, on Base (eip155:8453) or Base Sepolia (eip155:84532), paying per call in USDC or EURC with x402. No accounts: the paying wallet is the caller.',
  'Free tools read: list_tokens, get_token, get_quote, list_trades, get_candles, list_holders, list_positions, get_prices, get_payment, get_delivery, get_payout, prepare_sell.',
  `Paid tools act: create_token, token_buy_usd, token_buy_tokens, token_buy_quote, token_sell, token_info. Called without payment, a paid tool answers isError with the x402 PaymentRequired; sign one offer (EIP-3009) and call again with the PaymentPayload in _meta["${PAYMENT_META}"]. The answer carries the settlement in _meta["x402/payment-response"]. The same payment sent again returns the first answer and is never charged twice.`,
  `The network follows the paying wallet's history (Base mainnet history → eip155:8453, else eip155:84532); name the wallet in _meta["${WALLET_META}"] on the unpaid call and the 402 offers only its network.`,
  'Each token is also a resource, launchpad://token/{tokenId} (its view as JSON, as get_token answers); the prompts launch_token and trade_within_budget walk through a launch and a trade within a USD budget.',
  'Amounts are decimal strings (USD with up to 6 decimals, tokens up to 18). To sell: prepare_sell, sign its typedData with the wallet, then token_sell with its tokenAuthorization plus the signature. A paid answer with status "pending" is not final: call get_payment, never pay again.',
].join('\n');
