/**
 * The paid routes over the payment pipeline: the request goes in through receivePaidCall
 * (src/app/payments/receive-paid-call.ts) with its payment in PAYMENT-SIGNATURE (x402 v2) or
 * X-PAYMENT (v1, decision 0046) and its wallet in X-Wallet-Address, the PaidOutcome comes out as
 * HTTP — the 402 with PAYMENT-REQUIRED, a stored answer with PAYMENT-RESPONSE (X-PAYMENT-RESPONSE
 * for a v1 payment), or an access grant. Refusals are thrown and rendered by the error middleware
 * (errors.ts).
 */
import type { Context } from 'koa';
import type { Application } from '../../../app/application.js';
import type { AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import { successEnvelope } from '../../../app/kit/error-status.js';
import { MethodNotAllowed } from './http-errors.js';
import { SIGN_IN_WITH_X_HEADER } from '../../../app/payments/extensions/wallet-proof.js';
import { verifiedIn, type PaidOutcome } from '../../../app/payments/pipeline/outcome.js';
import { challengeDetails, receivePaidCall } from '../../../app/payments/receive-paid-call.js';
import { EntrypointNotFound, PaymentRequired } from '../../../domain/errors.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { readJsonBody } from './body.js';
import { BAZAAR_KEY, bazaarExtension } from './discovery.js';
import { addPaymentRequiredHeader, renderError, type PaymentRequiredEnricher } from './errors.js';
import { readPaymentIdentifier } from '../../kit/x402/x402-extensions.js';
import { readPayment, paymentHeaderOf, setSettlementHeader, type PaymentHeader } from './payment-headers.js';

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
    const declared = { [BAZAAR_KEY]: bazaarExtension(entrypoint) };
    ctx.state.x402Extensions = declared;
    // A client that named its wallet (X-Wallet-Address) has done what the Sign-In-With-X challenge
    // is for: its 402 carries none, nor does the payment that echoes it (decision 0052) — unless
    // the operation grants access to a wallet that proves itself later (token_info).
    const challengeLeftOut = ctx.get('x-wallet-address') !== '' && !entrypoint.grantsAccess;
    if (enrich) ctx.state.x402Enrich = challengeLeftOut ? ((required) => enrich(required, { signInWithX: false })) satisfies PaymentRequiredEnricher : enrich;
    const input = unwrapInput(await readJsonBody(ctx, entrypoint.bodyLimit));
    const resource = { url: `${ctx.protocol}://${ctx.host}${ctx.path}`, description: entrypoint.description, mimeType: 'application/json' };
    const get = (header: string) => ctx.get(header);
    // x402 v2 (PAYMENT-SIGNATURE) or v1 (X-PAYMENT), one payment either way; the answer's settlement header follows it.
    const header = paymentHeaderOf(get);
    ctx.state.paymentHeader = header;
    const { outcome } = await receivePaidCall(application, {
      entrypoint,
      input,
      resource,
      wallet: ctx.get('x-wallet-address') ? { value: ctx.get('x-wallet-address'), field: 'X-Wallet-Address' } : undefined,
      payment: header ? { read: () => readPayment(get, header, resource.url), identify: (p) => readPaymentIdentifier(p).id } : undefined,
      walletProof: ctx.get(SIGN_IN_WITH_X_HEADER) || undefined,
      declared,
      requestId: ctx.state.requestId as string | undefined,
      logAs: { entrypoint: name },
    });
    ctx.state.paymentVerified = verifiedIn(outcome);
    if ('paymentId' in outcome && outcome.paymentId) ctx.state.paymentId = outcome.paymentId; // the access log names it
    await render(ctx, entrypoint, outcome);
  };
}

/**
 * A GET of a paid URL: the batch-settlement scheme's cooperative refund (docs/payments.md "Pay
 * once, call many") — without a payment, the 402 of the offers to refund against; with a refund
 * payload in PAYMENT-SIGNATURE, the refund, its transaction in PAYMENT-RESPONSE.
 */
export function channelRefundRoute(application: Application) {
  return async (ctx: Context, entrypoint: AnyEntrypoint | undefined): Promise<void> => {
    const only = { ...(typeof ctx.query.network === 'string' ? { network: ctx.query.network } : {}), ...(typeof ctx.query.asset === 'string' ? { asset: ctx.query.asset } : {}) };
    const url = `${ctx.protocol}://${ctx.host}${ctx.path}`;
    const probe = entrypoint ? application.flow.refundProbe({ url, description: entrypoint.description, mimeType: 'application/json' }, only) : null;
    if (!entrypoint || !probe) throw new MethodNotAllowed(['POST']);
    const get = (header: string) => ctx.get(header);
    const header = paymentHeaderOf(get);
    if (header !== 'PAYMENT-SIGNATURE') return renderError(ctx, new PaymentRequired(probe as unknown as Record<string, unknown>));
    ctx.state.paymentHeader = header;
    await renderStored(ctx, await application.flow.refundChannel(readPayment(get, header, probe.resource.url), probe.resource));
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
  // X-PAYMENT-RESPONSE for a payment that came in X-PAYMENT, else PAYMENT-RESPONSE (decision 0046).
  if (res.settlement) setSettlementHeader(ctx, ctx.state.paymentHeader as PaymentHeader | undefined, res.settlement);
  await addPaymentRequiredHeader(ctx);
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
