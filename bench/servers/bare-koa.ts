/**
 * Baseline: a bare Koa + @koa/router handler serving a fixed JSON body at GET /tokens/:id and
 * GET /health — the floor any Koa service pays for the same response. Run as its own process
 * (like the service), so the load generator never shares its event loop.
 *   BODY_FILE=<json> tsx bench/servers/bare-koa.ts  → prints "listening on http://…"
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';

const body = JSON.parse(readFileSync(process.env.BODY_FILE!, 'utf8')) as unknown;
const app = new Koa();
const router = new Router();
router.get('/tokens/:id', (ctx) => {
  ctx.body = body;
});
app.use(router.routes());
const server = createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
