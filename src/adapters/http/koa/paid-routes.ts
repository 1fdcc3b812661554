import type { Context } from 'koa';
import type { AnyEntrypoint } from '../../../app/entrypoints.js';

/** The routes a payment can pay for: `POST /tokens` and `POST /entrypoints/<name>[/invoke]`. */
export function isPaidRoute(ctx: Pick<Context, 'method' | 'path'>): boolean {
  return ctx.method === 'POST' && (ctx.path === '/tokens' || /^\/entrypoints\/[^/]+(\/invoke)?\/?$/.test(ctx.path));
}

/** Where an entrypoint answers (the manifest's `paths`). Its canonical resource is `/entrypoints/<name>`. */
export function entrypointPaths(e: Pick<AnyEntrypoint, 'name'>): string[] {
  const paths = [`/entrypoints/${e.name}`, `/entrypoints/${e.name}/invoke`];
  return e.name === 'token_create' ? ['/tokens', ...paths] : paths;
}
