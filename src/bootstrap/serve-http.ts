/**
 * The root's last phase: the HTTP server — the free budget in front, the MCP endpoint, the page
 * for people — listening, and closed first at teardown (open event streams ended).
 */
import type { Server } from 'node:http';
import { parseTrustProxy } from '../adapters/http/koa/client-ip.js';
import { createHttpApp } from '../adapters/http/koa/http-app.js';
import { PortInUse } from '../adapters/http/koa/port-in-use.js';
import { close, DEFAULT_TIMEOUTS, listen } from '../adapters/http/koa/server.js';
import { McpEndpoint, MCP_PATH } from '../adapters/mcp/sdk/mcp-endpoint.js';
import { loadPageFiles } from '../adapters/web/esbuild/page-files.js';
import { pageRoute, type PageRoute } from '../adapters/web/esbuild/page-route.js';
import type { Application } from '../app/application.js';
import type { Closers } from './closers.js';
import type { Config } from './config/config.js';
import { portInUse } from './start-refusals.js';

export interface Serving {
  server: Server;
  url: string;
  page: PageRoute;
}

export async function serveHttp(config: Config, application: Application, closers: Closers, listening: { origin?: string }): Promise<Serving> {
  const { deps } = application;
  const limiter = deps.rateLimiter;
  const trustProxy = parseTrustProxy(config.trustProxy);
  const budget = limiter ? { limiter, limit: config.rateLimitPerMinute, windowSeconds: 60 } : null;
  const shutdown = new AbortController();
  const page = pageRoute(loadPageFiles, deps.logger, { chain: config.chain });
  const app = createHttpApp(application, {
    // The MCP endpoint keeps the free budget itself: whether a call is paid is in its body.
    ...(budget ? { freeBudget: { ...budget, trustProxy, selfLimitedPaths: [MCP_PATH] } } : {}),
    shutdown: shutdown.signal,
    trustProxy,
    eventStream: { maxTotal: config.maxEventStreams, maxPerClient: config.maxEventStreamsPerClient },
    publicUrl: config.publicUrl,
    mcp: new McpEndpoint(application, budget),
    cors: { origins: config.corsOrigins, publicUrl: config.publicUrl, listenHost: config.host, allowedHosts: config.allowedHosts },
    page,
  });
  let server: Server;
  try {
    server = await listen(app, config.port, config.host, DEFAULT_TIMEOUTS, () => deps.ids.next('req'));
  } catch (e) {
    throw e instanceof PortInUse ? portInUse(config) : e;
  }
  closers.push('HTTP server', () => {
    shutdown.abort();
    return close(server);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  listening.origin = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;
  return { server, url: `http://${config.host}:${port}`, page };
}
