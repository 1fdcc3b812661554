import type { Context, Next } from 'koa';
import type { IdGenerator } from '../../../ports/id-generator.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const API_VERSION = '1';

/** Every response carries X-Request-Id (the caller's, when it is safe) and API-Version. */
export function requestContext(ids: IdGenerator) {
  return async function context(ctx: Context, next: Next): Promise<void> {
    const given = ctx.get('x-request-id');
    ctx.state.requestId = SAFE_REQUEST_ID.test(given) ? given : ids.next('req');
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set('API-Version', API_VERSION);
    await next();
  };
}
