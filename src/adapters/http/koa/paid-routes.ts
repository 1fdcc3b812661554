import type { Context } from 'koa';

/** The routes a payment can pay for: `POST /tokens` and `POST /entrypoints/<name>[/invoke]`. */
export function isPaidRoute(ctx: Pick<Context, 'method' | 'path'>): boolean {
  return ctx.method === 'POST' && (ctx.path === '/tokens' || /^\/entrypoints\/[^/]+(\/invoke)?\/?$/.test(ctx.path));
}
