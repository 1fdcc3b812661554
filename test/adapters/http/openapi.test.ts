/**
 * The OpenAPI document lists every live route: each route the Koa router holds, with each of its
 * methods, is a path of the document (a paid route under each entrypoint's name), and the document
 * names the server it describes.
 */
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/koa/http-app.js';
import { McpEndpoint } from '../../../src/adapters/mcp/sdk/mcp-endpoint.js';
import type { RunningService } from '../../../src/bootstrap/compose.js';
import { json, startTestService } from '../../support/service.js';

let service: RunningService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

interface Layer {
  path: string;
  methods: string[];
}

/** The routes of an app built as the service builds it: the router's own table. */
function liveRoutes(): [path: string, method: string][] {
  const app = createHttpApp(service.application, { mcp: new McpEndpoint(service.application) });
  // The API's router (the page at / has a small router of its own, mounted first).
  const routers = app.middleware.map((m) => (m as unknown as { router?: { stack: Layer[] } }).router).filter((r) => r !== undefined);
  const router = routers.reduce((a, b) => (b.stack.length > a.stack.length ? b : a));
  const names = [...service.application.entrypoints.keys()];
  return router.stack.flatMap((layer) => {
    // A paid entrypoint's POST is described at its own path; the one GET of them all (the batch-settlement refund) at /entrypoints/{name}.
    const paths = layer.path.includes(':name') && layer.methods.includes('POST') ? names.map((n) => layer.path.replace(':name', n)) : [layer.path];
    return paths.flatMap((p) => layer.methods.filter((m) => m !== 'HEAD').map((m): [string, string] => [p.replace(/:(\w+)/g, '{$1}'), m.toLowerCase()]));
  });
}

describe('GET /api/openapi.json', () => {
  it('describes every live route and method, sell-authorization, deliveries and MCP among them', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    const routes = liveRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const missing = routes.filter(([path, method]) => !doc.paths[path]?.[method]).map(([path, method]) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
    for (const path of ['/api/tokens/{id}/sell-authorization', '/api/deliveries/{deliveryId}', '/mcp', '/llms.txt', '/.well-known/mcp.json']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(doc.paths['/api/tokens/{id}/sell-authorization'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'wallet', 'tokens']);
    expect(doc.paths['/api/tokens/{id}/sell-authorization'].get.responses[200].content['application/json'].schema.properties.data.required).toEqual(
      expect.arrayContaining(['typedData', 'tokenAuthorization']),
    );
  });

  it('is also found at /openapi.json, by a permanent redirect', async () => {
    const res = await fetch(`${service.url}/openapi.json`, { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/api/openapi.json');
    const followed = await fetch(`${service.url}/openapi.json`);
    expect((await json(followed)).openapi).toBe('3.1.0');
  });

  it('names its server: the origin it was asked at', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    expect(doc.servers).toEqual([{ url: service.url }]);
  });
});

describe('the OpenAPI document, read by a real OpenAPI parser', () => {
  it('validates as OpenAPI 3.1 (@readme/openapi-parser: the specification\'s schema and its rules)', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});
