/**
 * The paid routes over the payment pipeline (src/app/payments/payment-flow.ts): the request goes
 * in as a PaidRequest, the PaidOutcome comes out as HTTP — the 402 with PAYMENT-REQUIRED, a stored
 * answer with PAYMENT-RESPONSE, or an access grant. Refusals are thrown and rendered by the error
 * middleware (errors.ts).
 */
import type { Context } from 'koa';
import type { Application } from '../../../app/application.js';
import type { AnyEntrypoint } from '../../../app/entrypoints.js';
import { successEnvelope } from '../../../app/error-status.js';
import { SIGN_IN_WITH_X_HEADER } from '../../../app/extensions/wallet-proof.js';
import { verifiedIn, type Outcome, type PaidOutcome } from '../../../app/payments/pipeline/outcome.js';
import { EntrypointNotFound, isRefusal, PaymentInvalid, PaymentRequired, ValidationError, type DomainError } from '../../../domain/errors.js';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { readJsonBody } from './body.js';
import { BAZAAR_KEY, bazaarExtension } from './discovery.js';
import { addPaymentRequiredHeader, renderError, type PaymentRequiredEnricher } from './errors.js';
import { readPaymentIdentifier } from '../../kit/x402/x402-extensions.js';
import { decodePaymentSignature, encodePaymentResponse, PAYMENT_RESPONSE, PAYMENT_SIGNATURE } from './x402-headers.js';

/** The routes a payment can pay for: `POST /tokens` and `POST /entrypoints/<name>[/invoke]`. */
export function isPaidRoute(ctx: Pick<Context, 'method' | 'path'>): boolean {
  return ctx.method === 'POST' && (ctx.path === '/tokens' || /^\/entrypoints\/[^/]+(\/invoke)?\/?$/.test(ctx.path));
}

/** The handler of a paid route; `enrich` makes the per-402 extensions (errors.ts). */
export function paidRoute(application: Application, enrich: PaymentRequiredEnricher | undefined) {
  return async (ctx: Context, entrypoint: AnyEntrypoint | undefined, name: string): Promise<void> => {
    if (!entrypoint) throw new EntrypointNotFound(name);
    // Every 402 of this route declares its Bazaar discovery metadata, and whatever is made per 402
    // (both added where the 402 is rendered, in errors.ts).
    ctx.state.x402Extensions = { [BAZAAR_KEY]: bazaarExtension(entrypoint) };
    if (enrich) ctx.state.x402Enrich = enrich;
    const rawInput = unwrapInput(await readJsonBody(ctx));
    const hintHeader = ctx.get('x-wallet-address');
    if (hintHeader && !/^0x[0-9a-fA-F]{40}$/.test(hintHeader)) {
      throw ValidationError.of('X-Wallet-Address', 'must be a 0x-prefixed 20-byte hex address');
    }
    const signature = ctx.get(PAYMENT_SIGNATURE);
    let payment;
    let undecodable: DomainError | undefined;
    try {
      payment = signature ? decodePaymentSignature(signature) : undefined;
    } catch (e) {
      undecodable = e as DomainError;
    }
    // What the 402's header left out (decision 0034) goes to the facilitator as if the client had
    // echoed it: a Bazaar facilitator catalogues the route from the payment it verifies.
    if (payment) payment = withDeclared(payment, ctx.state.x402Extensions as Record<string, unknown>);
    let outcome: PaidOutcome;
    try {
      outcome = await application.flow.handle({
        entrypoint,
        rawInput,
        resource: { url: `${ctx.protocol}://${ctx.host}${ctx.path}`, description: entrypoint.description, mimeType: 'application/json' },
        walletHint: hintHeader || undefined,
        payment,
        walletProof: ctx.get(SIGN_IN_WITH_X_HEADER) || undefined,
        paymentIdentifier: payment ? readPaymentIdentifier(payment).id : null,
        requestId: ctx.state.requestId as string | undefined,
      });
      // An undecodable signature is answered once the request itself is known to be valid.
      if (undecodable && outcome.kind === 'challenge') {
        throw new PaymentInvalid(undecodable.message, { ...undecodable.details, paymentRequired: challengeDetails(outcome) });
      }
    } catch (e) {
      if (signature) logRefusedPayment(application, ctx, name, payment, e);
      throw e;
    }
    ctx.state.paymentVerified = verifiedIn(outcome);
    if ('paymentId' in outcome && outcome.paymentId) ctx.state.paymentId = outcome.paymentId; // the access log names it
    await render(ctx, entrypoint, outcome);
  };
}

async function render(ctx: Context, entrypoint: AnyEntrypoint, outcome: PaidOutcome): Promise<void> {
  switch (outcome.kind) {
    case 'challenge':
      return renderError(ctx, new PaymentRequired(challengeDetails(outcome)));
    case 'granted':
      ctx.status = entrypoint.successStatus;
      ctx.body = successEnvelope(entrypoint.operation, outcome.result);
      ctx.set('Access-Granted-Until', outcome.until.toISOString());
      return;
    case 'replayed':
    case 'rejected':
    case 'pending':
    case 'applied':
    case 'refunded':
      return renderStored(ctx, outcome.response);
  }
}

/** A payment's answer as it was stored: replays are byte for byte the first answer. */
async function renderStored(ctx: Context, res: StoredResponse): Promise<void> {
  ctx.status = res.status;
  ctx.body = res.body;
  ctx.set(res.headers);
  if (res.settlement) ctx.set(PAYMENT_RESPONSE, encodePaymentResponse(res.settlement));
  await addPaymentRequiredHeader(ctx);
}

/** The 402's `details`: the PaymentRequired object, and why a Sign-In-With-X proof was not taken. */
function challengeDetails(outcome: Outcome<'challenge'>): Record<string, unknown> {
  return { ...outcome.paymentRequired, ...(outcome.siwx ? { siwx: outcome.siwx } : {}) };
}

/** An operator sees every refused payment, by request id — never the signature itself. */
function logRefusedPayment(application: Application, ctx: Context, entrypoint: string, payment: PaymentPayload | undefined, e: unknown): void {
  if (!isRefusal(e)) return; // logged as an error elsewhere
  const from = (payment?.payload as { authorization?: { from?: unknown } } | undefined)?.authorization?.from;
  application.logger.info('payment refused; nothing charged', {
    requestId: ctx.state.requestId,
    entrypoint,
    code: e.code,
    reason: e.details?.reason,
    ...(typeof from === 'string' ? { payer: from } : {}),
    ...(payment?.accepted?.network ? { network: payment.accepted.network } : {}),
  });
}

/** An entrypoint body is the input itself or `{ "input": { … } }`. */
function unwrapInput(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const input = (body as { input?: unknown }).input;
    if (keys.length === 1 && keys[0] === 'input' && input && typeof input === 'object') return input;
  }
  return body;
}

/** The payment with the route's declared extensions added where the client did not send them (theirs win). */
function withDeclared(payment: PaymentPayload, declared: Record<string, unknown>): PaymentPayload {
  const missing = Object.entries(declared).filter(([key]) => !(payment.extensions && key in payment.extensions));
  return missing.length === 0 ? payment : { ...payment, extensions: { ...Object.fromEntries(missing), ...payment.extensions } };
}
