import type { Context, Next } from 'koa';
import type { IdGenerator } from '../../../ports/id-generator.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const API_VERSION = '1';

/** The request's id: the caller's X-Request-Id when it is safe to repeat, else a new one. */
export function requestIdOf(given: string | undefined, ids: IdGenerator): string {
  return given && SAFE_REQUEST_ID.test(given) ? given : ids.next('req');
}

/** Every response carries X-Request-Id (the caller's, when it is safe) and API-Version. */
export function requestContext(ids: IdGenerator) {
  return async function context(ctx: Context, next: Next): Promise<void> {
    ctx.state.requestId = requestIdOf(ctx.get('x-request-id'), ids);
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set('API-Version', API_VERSION);
    await next();
  };
}
