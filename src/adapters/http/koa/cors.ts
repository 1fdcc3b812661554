/**
 * CORS (docs/api.md "Browsers and other origins"): a page on another origin may call the API and
 * pay through it when CORS_ORIGINS allows its origin. The service's own origin (PUBLIC_URL, or the
 * request's own) is always allowed; nothing else is unless listed. Preflights are answered here,
 * before the rate limiter and the routes; a preflight from an origin not allowed is 403
 * CORS_ORIGIN_NOT_ALLOWED. No credentials: the API has no cookies, a payment is the identity.
 */
import type { Context, Next } from 'koa';
import { CorsOriginNotAllowed } from './http-errors.js';

export interface CorsOptions {
  /** Origins allowed besides the service's own; `'*'` allows any. */
  origins: '*' | readonly string[];
  /** The service's public origin (PUBLIC_URL), allowed like the request's own origin. */
  publicUrl?: string | undefined;
}

/**
 * What a browser may send: JSON bodies, the x402 payment (v2, and v1's X-PAYMENT — whose clients
 * also send Access-Control-Expose-Headers as a request header), the extensions' and our own request headers.
 */
export const CORS_ALLOW_HEADERS = [
  'Content-Type',
  'PAYMENT-SIGNATURE',
  'X-PAYMENT',
  'Access-Control-Expose-Headers',
  'SIGN-IN-WITH-X',
  'X-Wallet-Address',
  'X-Request-Id',
  'Last-Event-ID',
  'Cache-Control',
];

/** What a browser script may read: the x402 answers and every other header the API documents. */
export const CORS_EXPOSE_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-PAYMENT-RESPONSE',
  'X-Request-Id',
  'API-Version',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Location',
  'Access-Granted-Until',
  'Link',
  'Allow',
];

const ALLOW_METHODS = 'GET, HEAD, POST';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export function cors(options: CorsOptions) {
  const listed = options.origins === '*' ? null : new Set(options.origins);
  // The service's own origin as this request reached it (Koa 3's ctx.origin is the Origin header itself).
  const own = (ctx: Context) => `${ctx.protocol}://${ctx.host}`;
  const allowed = (origin: string, ctx: Context) =>
    listed === null || listed.has(origin) || origin === own(ctx) || (options.publicUrl !== undefined && origin === options.publicUrl);
  return async function corsHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.vary('Origin');
    const origin = ctx.get('origin');
    const preflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
    if (origin === '' || !allowed(origin, ctx)) {
      if (preflight) throw new CorsOriginNotAllowed(origin || 'null');
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    if (preflight) {
      ctx.status = 204;
      ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
      ctx.set('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS.join(', '));
      ctx.set('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
      return;
    }
    ctx.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS.join(', '));
    await next();
  };
}
