/**
 * The routes agents use (docs/agents.md): the MCP endpoint, mounted from the MCP adapter as a
 * web-standard handler (this adapter knows no MCP, the MCP adapter no Koa), and what an agent that
 * knows only the origin reads first — /llms.txt, the MCP Server Card and Catalog, and
 * /.well-known/mcp.json.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Application } from '../../../app/application.js';
import type { AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import { BODY_LIMIT_BYTES, readJsonBody } from './body.js';
import { clientKeyOf, type TrustProxy } from './client-ip.js';
import { llmsTxt } from './llms-txt.js';

/**
 * Another protocol served on this port: POST `path` with its JSON body read (64 KiB, as every
 * body), answered by `handle` (a JSON answer, or an SSE stream streamed as written). It keeps its
 * own free budget (the rate limiter skips its path).
 */
export interface HttpMount {
  path: string;
  handle(request: Request, body: unknown, info: { client: string; requestId: string }): Promise<Response>;
  /** What agents read about it, made by its own adapter (src/adapters/mcp/sdk/mcp-catalogue.ts). */
  documents: MountDocuments;
}

/** The discovery documents of a mounted protocol (docs/agents.md "Discovery"), each under the origin asked at. */
export interface MountDocuments {
  cardMediaType: string;
  /** Where the card is served under the mount's path (`/server-card`). */
  cardSuffix: string;
  serverCard(origin: string): unknown;
  catalog(origin: string): unknown;
  document(origin: string): unknown;
  /** Its tools, one line each, as llms.txt lists them. */
  toolLines(): string[];
  /** Its paid tools, as /.well-known/x402 lists them. */
  paidTools: readonly { name: string; resource: string; entrypoint: AnyEntrypoint; bazaar: Record<string, unknown> }[];
}

export interface AgentRouteOptions {
  mcp?: HttpMount | undefined;
  origin: (ctx: Context) => string;
  trustProxy: TrustProxy;
}

/** Discovery documents change with a deployment, not per request. */
const CACHED = 'public, max-age=3600';

export function agentRoutes(router: Router, application: Application, options: AgentRouteOptions): void {
  const settings = application.deps.settings;
  const mcp = options.mcp;
  const catalogue = { reads: application.reads, entrypoints: application.entrypoints.values() };

  router.get('/llms.txt', (ctx) => {
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.set('Cache-Control', CACHED);
    ctx.body = llmsTxt(options.origin(ctx), mcp ? { path: mcp.path, toolLines: mcp.documents.toolLines() } : null, catalogue, settings);
  });
  if (!mcp) return;

  // A tool call carries its operation's input: as large as the largest any operation takes (an image upload).
  const bodyLimit = Math.max(BODY_LIMIT_BYTES, ...[...application.entrypoints.values()].map((e) => e.bodyLimit ?? 0));
  router.post(mcp.path, async (ctx) => {
    const body = await readJsonBody(ctx, bodyLimit);
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    // A client that goes away aborts what it asked (a stream the mount still writes ends).
    const gone = new AbortController();
    ctx.res.once('close', () => gone.abort());
    const request = new Request(`${ctx.protocol}://${ctx.host}${ctx.url}`, { method: 'POST', headers, signal: gone.signal });
    const client = clientKeyOf(ctx.req, options.trustProxy);
    const res = await mcp.handle(request, body, { client, requestId: ctx.state.requestId as string });
    ctx.status = res.status;
    res.headers.forEach((value, name) => ctx.set(name, value));
    if (res.body && /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) {
      // An SSE answer is streamed as it is written, not buffered.
      ctx.body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
      return;
    }
    // Koa would answer an empty body with 204: the transport's 202 (a notification taken) stays 202.
    ctx.body = (await res.text()) || '';
  });

  const docs = mcp.documents;
  const card = (ctx: Context) => {
    ctx.set('Cache-Control', CACHED);
    ctx.body = docs.serverCard(options.origin(ctx));
    // A client asks for the card's media type; anyone else reads JSON.
    ctx.type = ctx.accepts(docs.cardMediaType, 'application/json') === docs.cardMediaType ? docs.cardMediaType : 'application/json';
  };
  router.get(`${mcp.path}${docs.cardSuffix}`, card);
  router.get('/.well-known/mcp/server-card.json', card);
  router.get('/.well-known/mcp/catalog.json', (ctx) => {
    ctx.set('Cache-Control', CACHED);
    ctx.body = docs.catalog(options.origin(ctx));
  });
  router.get('/.well-known/mcp.json', (ctx) => {
    ctx.set('Cache-Control', CACHED);
    ctx.body = docs.document(options.origin(ctx));
  });
}
