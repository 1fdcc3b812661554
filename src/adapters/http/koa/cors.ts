/**
 * CORS (docs/api.md "Browsers and other origins"): a page on another origin may call the API and
 * pay through it when CORS_ORIGINS allows its origin. The service's own origin (PUBLIC_URL, or the
 * address it listens on: origin-policy.ts) is always allowed; nothing else is unless listed.
 * Preflights are answered here, before the rate limiter and the routes; a preflight from an origin
 * not allowed is 403 CORS_ORIGIN_NOT_ALLOWED. No credentials: the API has no cookies, a payment is
 * the identity. On the routes that act (the paid routes, /mcp) a Host the service does not answer
 * to, or an Origin not allowed, is refused outright (DNS rebinding, decision 0042).
 */
import type { Context, Next } from 'koa';
import { CorsOriginNotAllowed, HostNotAllowed } from './http-errors.js';
import type { OriginPolicy, OriginPolicyOptions } from './origin-policy.js';

export type CorsOptions = OriginPolicyOptions;

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

export function cors(policy: OriginPolicy) {
  return async function corsHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.vary('Origin');
    // Koa 3's ctx.origin is the Origin header itself, so the header is read by name.
    const origin = ctx.get('origin');
    const preflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
    if (origin === '' || !policy.allows(origin, ctx.req.socket)) {
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

/**
 * On the routes `guarded` names: a request whose Host the service does not answer to is 403
 * HOST_NOT_ALLOWED, one whose Origin it does not allow 403 CORS_ORIGIN_NOT_ALLOWED, before anything
 * is read or counted. A request without Origin (an agent, curl) with a Host it answers to goes on.
 */
export function refuseForeignRequests(policy: OriginPolicy, guarded: (ctx: Context) => boolean) {
  return async function foreignRequests(ctx: Context, next: Next): Promise<void> {
    if (guarded(ctx)) {
      const host = ctx.get('host');
      if (!policy.answersTo(host, ctx.req.socket)) throw new HostNotAllowed(host);
      const origin = ctx.get('origin');
      if (origin !== '' && !policy.allows(origin, ctx.req.socket)) throw new CorsOriginNotAllowed(origin);
    }
    await next();
  };
}
