/**
 * The Koa adapter: the routes of docs/api.md over the Application. Koa and the router stay here;
 * handlers translate HTTP to use-case calls and results to envelopes.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Application } from '../../../app/application.js';
import { successEnvelope } from '../../../app/kit/error-status.js';
import { eventsQuery, parseQuery, parseWith, tokenIdSchema } from '../../../app/kit/schemas.js';
import { getTokenMetadata } from '../../../app/tokens/get-token-metadata.js';
import { proveWallet, SIGN_IN_WITH_X_HEADER, siwxDetails } from '../../../app/payments/extensions/wallet-proof.js';
import { NotFound, ServiceUnavailable, ValidationError } from '../../../domain/errors.js';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../../app/kit/availability.js';
import type { ReadinessReport } from '../../../app/application.js';
import { agentRoutes, type HttpMount } from './agent-routes.js';
import { discoveryDocument, WELL_KNOWN_X402 } from './discovery.js';
import { MethodNotAllowed } from './http-errors.js';
import { errorHandler, type PaymentRequiredEnricher } from './errors.js';
import { clientKeyOf, clientOf, type TrustProxy } from './client-ip.js';
import { cors, refuseForeignRequests, type CorsOptions } from './cors.js';
import { OriginPolicy } from './origin-policy.js';
import { DEFAULT_STREAM, EventStreams, streamEvents, type EventStreamOptions } from './events-stream.js';
import { manifest } from './manifest.js';
import { openApiDocument } from './openapi.js';
import { observeRequests, UNMATCHED_ROUTE } from './observe-requests.js';
import { channelRefundRoute, isPaidRoute, paidRoute } from './paid-routes.js';
import { readRoutes } from './read-routes.js';
import { imageRoutes } from './image-routes.js';
import { requestContext } from './request-context.js';
import { keptAnswers, type NodeHandler } from './kept-answers.js';
import { rateLimit, type RateLimitOptions } from './rate-limit.js';
import { paymentRequiredExtensions } from '../../kit/x402/x402-extensions.js';

export interface HttpOptions {
  /** Extra middleware run before routing, in order (after the page, before the free budget). */
  before?: Koa.Middleware[];
  /** The free budget (docs/rate-limits.md) every request but a verified payment counts against; none when omitted. */
  freeBudget?: RateLimitOptions;
  eventStream?: Partial<EventStreamOptions>;
  /** The open-stream registry (tests read it); one is made when omitted. */
  streams?: EventStreams;
  /** How the client's address is found behind proxies (the event-stream cap is per client). */
  trustProxy?: TrustProxy;
  /** Aborted when the service stops: long-lived responses (SSE) end. */
  shutdown?: AbortSignal;
  /** The public origin (`https://api.example.com`) discovery documents name; the request's own when unset. */
  publicUrl?: string | undefined;
  /**
   * Extensions made for each 402 of a paid route from its resource and accepts (signed offers,
   * a Sign-In-With-X challenge, the payment-identifier declaration). A failure is logged and the
   * 402 goes out without them. Default: those of the application's signer and verifier.
   */
  paymentRequiredExtensions?: PaymentRequiredEnricher;
  /** The MCP endpoint (src/adapters/mcp/sdk), served on this port beside the API (docs/agents.md). */
  mcp?: HttpMount;
  /**
   * Origins besides the service's own whose pages may call the API (CORS_ORIGINS; default: none),
   * and the Hosts it answers to (origin-policy.ts; default: the loopback names and the address reached).
   */
  cors?: CorsOptions;
  /** The page for people at `/` (src/adapters/web): served before the rate limiter and the routes. */
  page?: Koa.Middleware;
}

export function createHttpApp(application: Application, options: HttpOptions = {}): Koa {
  const app = new Koa();
  const trustProxy: TrustProxy = options.trustProxy ?? { kind: 'none' };
  const router = apiRoutes(application, options, trustProxy);
  app.on('error', (error: NodeJS.ErrnoException) => {
    // A client that goes away mid-response (an SSE reader closing) is not a server fault.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    application.logger.error('response stream error', { error: error.message });
  });
  useMiddleware(app, application, options, router, trustProxy);
  answerKeptFirst(app, application, options, trustProxy);
  return app;
}

/** Every route of the API: health, the catalogue's reads and paid operations, the documents, the metadata document and the event stream. */
function apiRoutes(application: Application, options: HttpOptions, trustProxy: TrustProxy): Router {
  const deps = application.deps;
  const router = new Router();
  const streamOptions = { ...DEFAULT_STREAM, ...options.eventStream };
  const streams = options.streams ?? new EventStreams(streamOptions);
  // Every open event stream listens for the shutdown: up to the streams' cap of them is the
  // service at work, not the listener leak Node warns of past its default of 10.
  if (options.shutdown) setMaxListeners(streamOptions.maxTotal + 1, options.shutdown);
  const enrich = guarded(options.paymentRequiredExtensions ?? paymentRequiredExtensions(deps, application.logger), application);
  healthRoutes(router, application);
  application.metrics.collect('event_streams_open', () => [{ value: streams.open }]);

  // Every free read of the catalogue (src/app/catalogue.ts, written in each room's catalogue.ts), by one loop.
  readRoutes(router, deps, application.reads, walletProver(application));

  const origin = (ctx: Context) => options.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  documentRoutes(router, application, { origin, mcp: options.mcp });
  // The MCP endpoint and what agents read first: /llms.txt, the server card, /.well-known/mcp.json.
  agentRoutes(router, application, { mcp: options.mcp, origin, trustProxy });
  paidRoutes(router, application, enrich);

  // The token metadata document as wallets and explorers read it: the document itself, no envelope.
  router.get('/api/tokens/:id/metadata.json', async (ctx) => {
    ctx.body = await getTokenMetadata(deps, parseWith(tokenIdSchema, ctx.params.id, 'id'));
    ctx.set('Cache-Control', 'public, max-age=60');
  });
  router.get('/api/events', async (ctx) => {
    const q = parseQuery(eventsQuery, ctx.query as Record<string, unknown>);
    const client = clientKeyOf(ctx.req, trustProxy);
    await streamEvents(ctx, deps, q, streams, client, streamOptions, options.shutdown);
  });
  return router;
}

/** The middleware in its order: request context, observation, errors, CORS and the origin check, the page and images, the free budget, the routes. */
function useMiddleware(app: Koa, application: Application, options: HttpOptions, router: Router, trustProxy: TrustProxy): void {
  const deps = application.deps;
  app.use(requestContext(deps.ids));
  app.use(
    observeRequests(application.logger, application.metrics, {
      route: (ctx) => routeOf(router, ctx),
      client: (ctx) => clientOf(ctx.req, trustProxy),
    }),
  );
  app.use(errorHandler(application.logger));
  const policy = new OriginPolicy(options.cors ?? { origins: [], publicUrl: options.publicUrl });
  app.use(cors(policy));
  // The routes that act: no Host the service does not answer to, no Origin it does not allow (DNS rebinding).
  const mcpPath = options.mcp?.path;
  app.use(refuseForeignRequests(policy, (ctx) => isPaidRoute(ctx) || (mcpPath !== undefined && ctx.path.replace(/(.)\/+$/, '$1') === mcpPath)));
  // The page and its assets: static and cached, so served before the free-request budget is counted.
  const pageRouter = new Router();
  if (options.page) for (const path of ['/', '/assets/:file']) pageRouter.get(path, options.page);
  app.use(onlyWhere(/^\/(?:\/?$|assets\/)/i, pageRouter.routes()));
  // Token images: immutable bytes by their hash, before the free budget like the page's assets.
  const images = imageRoutes(deps.uow);
  app.use(onlyWhere(/^\/images\//i, images.routes()));
  for (const m of options.before ?? []) app.use(m);
  if (options.freeBudget) app.use(rateLimit(options.freeBudget));
  app.use(router.routes());
  app.use(nothingAnswered([pageRouter, images, router]));
}

/** What a read keeps (a token's view) and /health are answered before all of the above (kept-answers.ts). */
function answerKeptFirst(app: Koa, application: Application, options: HttpOptions, trustProxy: TrustProxy): void {
  const deps = application.deps;
  const kept = keptAnswers({
    deps,
    reads: application.reads,
    ids: deps.ids,
    logger: application.logger,
    metrics: application.metrics,
    trustProxy,
    budget: options.freeBudget,
    health: () => application.healthNow() ?? application.health(),
  });
  const koaCallback = app.callback.bind(app);
  app.callback = () => {
    const handle = koaCallback();
    return (req, res) => kept(req as IncomingMessage, res as ServerResponse, handle as NodeHandler) as Promise<void>;
  };
}

/** What describes the API: the manifest, `/.well-known/x402`, the OpenAPI document (and where tools look for it first), the version. */
function documentRoutes(router: Router, application: Application, options: { origin: (ctx: Context) => string; mcp: HttpOptions['mcp'] }): void {
  const { deps } = application;
  router.get('/entrypoints', (ctx) => {
    ok(ctx, 'list_entrypoints', manifest(application.entrypoints.values(), deps.settings));
    ctx.set('Link', `<${WELL_KNOWN_X402}>; rel="describedby"; type="application/json"`);
  });
  const mcpDiscovery = options.mcp ? { path: options.mcp.path, tools: options.mcp.documents.paidTools } : undefined;
  router.get(WELL_KNOWN_X402, (ctx) => {
    ctx.body = discoveryDocument(application.entrypoints.values(), deps.settings, options.origin(ctx), mcpDiscovery);
  });
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = openApiDocument(application.reads, application.entrypoints.values(), deps.settings, {
      origin: options.origin(ctx),
      mcpPath: options.mcp?.path,
      cardMediaType: options.mcp?.documents.cardMediaType,
    });
  });
  // Where OpenAPI tools look first (docs/api.md): the same document, by a permanent redirect.
  router.get('/openapi.json', (ctx) => {
    ctx.redirect('/api/openapi.json');
    ctx.status = 308;
  });
  router.get('/api/version', (ctx) => ok(ctx, 'version', { api: '1', spec: '1.1', service: deps.settings.serviceVersion }));
}

/** The paid routes (paid-routes.ts), one per entrypoint and its other path; the rate limiter recognises them with isPaidRoute. */
function paidRoutes(router: Router, application: Application, enrich: PaymentRequiredEnricher | undefined): void {
  const paid = paidRoute(application, enrich);
  const refund = channelRefundRoute(application);
  for (const e of application.entrypoints.values()) if (e.alsoAt) router.post(e.alsoAt, (ctx) => paid(ctx, e, e.name));
  for (const path of ['/entrypoints/:name', '/entrypoints/:name/invoke']) {
    router.post(path, (ctx) => {
      const name = ctx.params.name ?? '';
      return paid(ctx, application.entrypoints.get(name), name);
    });
  }
  router.get('/entrypoints/:name', (ctx) => refund(ctx, application.entrypoints.get(ctx.params.name ?? '')));
}

/** The per-402 extensions, where a failure is logged and the 402 goes out without them. */
function guarded(made: PaymentRequiredEnricher | undefined, application: Application): PaymentRequiredEnricher | undefined {
  if (!made) return undefined;
  return async (required, wanted) => {
    try {
      return await made(required, wanted);
    } catch (e) {
      application.logger.warn('402 extensions could not be made; the 402 goes out without them', {
        error: e instanceof Error ? e.message : String(e),
      });
      return {};
    }
  };
}

/** The wallet a SIGN-IN-WITH-X proof proves, where a request may name its wallet that way (docs/api.md, "Sign-In-With-X"). */
function walletProver(application: Application) {
  return async (ctx: Context, proofRequired = false): Promise<string> => {
    const header = ctx.get(SIGN_IN_WITH_X_HEADER);
    if (!header) throw ValidationError.of('wallet', proofRequired ? 'must be proven with a SIGN-IN-WITH-X header' : 'is required (or prove the wallet with a SIGN-IN-WITH-X header)');
    const proof = await proveWallet(application.deps, header);
    if (proof.ok) return proof.wallet;
    throw new ValidationError([{ path: 'wallet', message: `is required: the SIGN-IN-WITH-X proof was not taken (${proof.reason})` }], undefined, {
      siwx: siwxDetails(proof),
    });
  };
}

function ok(ctx: Context, operation: string, data: unknown, status = 200): void {
  ctx.status = status;
  ctx.body = successEnvelope(operation, data);
}

/** Liveness: the process answers. Readiness: it can do its job (docs/operations.md, "Health"). Prometheus scrapes /metrics. */
function healthRoutes(router: Router, application: Application): void {
  // Liveness: the process answers. Readiness: it can do its job (docs/operations.md, "Health").
  router.get('/livez', (ctx) => ok(ctx, 'livez', { status: 'ok' }));
  router.get('/readyz', async (ctx) => {
    const report = await application.readiness();
    if (report.ready) return ok(ctx, 'readiness', report);
    throw new ServiceUnavailable(`Not ready: ${notReady(report.checks).join(', ')}.`, OUTAGE_RETRY_AFTER_SECONDS, { checks: report.checks });
  });
  // Prometheus scrapes this (docs/operations.md, "Metrics").
  router.get('/metrics', async (ctx) => {
    const { contentType, text } = await application.metrics.exposition();
    ctx.body = text;
    ctx.set('Content-Type', contentType);
    ctx.set('Cache-Control', 'no-store');
  });

  router.get('/health', async (ctx) => {
    const { report, required } = await application.health();
    ok(ctx, 'health', report, required ? 200 : 503);
    if (!required) ctx.set('Retry-After', '5');
  });
}

/**
 * `middleware` only for the paths `serves` could match (case-blind, as the routers are): a router
 * that cannot match a path (an API read, the bulk of the traffic) is not asked to, as it would
 * match the path against its layers on every request only to pass it on.
 */
function onlyWhere(serves: RegExp, middleware: ReturnType<Router['routes']>): Koa.Middleware {
  return (ctx, next) => (serves.test(ctx.path) ? middleware(ctx as Parameters<typeof middleware>[0], next) : next());
}

/** Nothing answered: a known path with another method is 405, anything else 404. */
function nothingAnswered(routers: Router[]): Koa.Middleware {
  return async (ctx) => {
    const allowed = new Set<string>();
    for (const r of routers) for (const layer of r.match(ctx.path, ctx.method).path) for (const m of layer.methods) allowed.add(m);
    if (allowed.size > 0 && ctx.method === 'OPTIONS') {
      // A plain OPTIONS (not a CORS preflight, which cors.ts answers): what the path serves.
      ctx.status = 204;
      ctx.set('Allow', [...allowed, 'OPTIONS'].sort().join(', '));
      return;
    }
    // A path served for this very method that still found nothing (an asset that is not there) is 404.
    if (allowed.size > 0 && !allowed.has(ctx.method)) throw new MethodNotAllowed([...allowed].sort());
    throw new NotFound(`No route for ${ctx.method} ${ctx.path}.`, { path: ctx.path });
  };
}

/** The route template a request matches (`/tokens/:id`): the label of its metrics, whatever answered it (a 429 before routing too). */
function routeOf(router: Router, ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  const layers = router.match(ctx.path, ctx.method).pathAndMethod.filter((l) => l.methods.length > 0);
  const path = layers.at(-1)?.path;
  return typeof path === 'string' ? path : UNMATCHED_ROUTE;
}

/** The checks that keep a process from being ready, as `name: status` (`chain eip155:8453: down`). */
function notReady(checks: ReadinessReport['checks']): string[] {
  const out: string[] = [];
  for (const [name, status] of Object.entries(checks)) {
    if (typeof status === 'string') {
      if (status !== 'ok' && !(name === 'facilitator' && status === 'degraded')) out.push(`${name}: ${status}`);
    } else {
      for (const [network, s] of Object.entries(status)) if (s !== 'ok') out.push(`chain ${network}: ${s}`);
    }
  }
  return out;
}
