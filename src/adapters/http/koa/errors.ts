/**
 * The one error middleware: every failure leaves as the docs/api.md "Error codes" envelope with the status of
 * the code table (the app's for domain errors, this adapter's for HTTP's own). Every 5xx is
 * logged with the request id and what caused it; an unknown error is a generic 500 naming the
 * request id, its details only in the log.
 */
import type { Context, Next } from 'koa';
import { DomainError, RateLimited } from '../../../domain/errors.js';
import { errorEnvelope, statusOfError, type ErrorEnvelope } from '../../../app/kit/error-status.js';
import type { Logger } from '../../../ports/logger.js';
import { isTransportError, MethodNotAllowed, TRANSPORT_ERROR_STATUS } from './http-errors.js';
import type { PaymentRequiredEnricher } from '../../kit/x402/x402-extensions.js';
import { withV1Challenge } from './payment-headers.js';
import { PAYMENT_REQUIRED, encodePaymentRequired } from './x402-headers.js';

export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      if (e instanceof DomainError && e.code !== 'INTERNAL_ERROR') {
        await renderError(ctx, e);
        if (ctx.status >= 500) {
          logger.error('answered with a server error', {
            requestId: ctx.state.requestId,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            code: e.code,
            error: e.message,
            ...describeCause(e.cause),
          });
        }
        return;
      }
      logger.error('unhandled error', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
        ...(e instanceof Error ? describeCause(e.cause) : {}),
      });
      ctx.status = 500;
      ctx.body = errorEnvelope('INTERNAL_ERROR', `Internal error. Quote request id ${ctx.state.requestId} when reporting it.`, {
        requestId: ctx.state.requestId,
      });
    }
  };
}

/** What lies under an error, for the log: its message and code (ECONNREFUSED, SQLITE_BUSY, …). */
function describeCause(cause: unknown): Record<string, unknown> {
  if (cause === undefined) return {};
  const c = cause as { message?: string; code?: string | number } | null;
  return { cause: c?.message ?? String(cause), ...(c?.code !== undefined ? { causeCode: c.code } : {}) };
}

export async function renderError(ctx: Context, e: DomainError): Promise<void> {
  ctx.status = isTransportError(e) ? TRANSPORT_ERROR_STATUS[e.code] : statusOfError(e as DomainError & { status?: number });
  ctx.body = errorEnvelope(e.code, e.message, e.details);
  if (e instanceof MethodNotAllowed) ctx.set('Allow', e.allow.join(', '));
  if (e instanceof RateLimited) ctx.set('Retry-After', String(e.details?.retryAfterSeconds ?? 60));
  // An outage's, and one answered again as it was recorded (decision 0063).
  const retryAfter = (e as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
  await addPaymentRequiredHeader(ctx);
}

/** Set per request as `ctx.state.x402Enrich` (the kit's type); must not throw (the caller wraps it). */
export type { PaymentRequiredEnricher };

/**
 * Every 402 carries PAYMENT-REQUIRED, so x402 clients can pay (or pay again) from any of them.
 * Extensions the route declares join the object in the body: the static ones
 * (`ctx.state.x402Extensions`, e.g. Bazaar) and those made for this 402 (`ctx.state.x402Enrich`,
 * e.g. signed offers); ones the flow already set win. The header carries the same object with
 * only the extensions a client acts on (x402-headers.ts, HEADER_EXTENSIONS), so it stays small.
 * The body also carries, at its top level, the `x402Version: 1` and `accepts` x402 v1 clients read.
 */
export async function addPaymentRequiredHeader(ctx: Context): Promise<void> {
  if (ctx.status !== 402) return;
  const body = ctx.body as ErrorEnvelope | undefined;
  const details = body?.error?.details;
  const atRoot = body?.error?.code === 'PAYMENT_REQUIRED';
  let required = (atRoot ? details : details?.paymentRequired) as Record<string, unknown> | undefined;
  if (!required || typeof required !== 'object') return;
  const declared = ctx.state.x402Extensions as Record<string, unknown> | undefined;
  const enrich = ctx.state.x402Enrich as PaymentRequiredEnricher | undefined;
  const made = enrich && Array.isArray(required.accepts) ? await enrich(required as Parameters<PaymentRequiredEnricher>[0]) : undefined;
  if (declared || made) {
    required = { ...required, extensions: { ...declared, ...made, ...(required.extensions as Record<string, unknown> | undefined) } };
    ctx.body = { ...body, error: { ...body!.error, details: atRoot ? required : { ...details, paymentRequired: required } } };
  }
  ctx.body = withV1Challenge(ctx.body, required); // x402 v1 hook (decision 0046): v1 clients read the body's top level
  ctx.set(PAYMENT_REQUIRED, encodePaymentRequired(required));
}
