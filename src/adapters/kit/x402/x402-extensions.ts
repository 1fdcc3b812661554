/**
 * The x402 extensions' wire pieces that travel in the payment payload and the 402, read and
 * written with @x402/extensions so nothing of their format is ours (docs/api.md "x402 extensions").
 */
import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { declareEip2612GasSponsoringExtension, EIP2612_GAS_SPONSORING } from '@x402/extensions';
import { SIGN_IN_WITH_X } from '@x402/extensions/sign-in-with-x';
import { isNetwork } from '../../../domain/network.js';
import type { PaymentPayload, PaymentRequirements } from '../../../ports/facilitator.js';
import type { Logger } from '../../../ports/logger.js';
import { OFFER_RECEIPT_KEY, type ReceiptSigner } from '../../../ports/receipt-signer.js';
import type { WalletProofVerifier } from '../../../ports/wallet-proof-verifier.js';

export { PAYMENT_IDENTIFIER };
export const EIP2612_GAS_SPONSORING_KEY = EIP2612_GAS_SPONSORING.key;

/**
 * Extensions a 402 declares that depend on the 402 itself (its resource and its accepts): signed
 * offers, a fresh Sign-In-With-X challenge. Every transport's 402 is enriched with them.
 */
export type PaymentRequiredEnricher = (
  required: { resource: { url: string }; accepts: unknown[] },
  /** `signInWithX: false`: this 402 goes to a client that named its wallet already (no challenge rides along). */
  wanted?: { signInWithX?: boolean },
) => Promise<Record<string, unknown>>;

/** A payment payload's `payment-identifier`: absent, a valid id, or present but malformed. */
export type PaymentIdentifierReading = { id: string } | { id: null } | { id: null; invalid: string[] };

/**
 * The client's idempotency id from a decoded PAYMENT-SIGNATURE, validated by the extension
 * (16–128 of [A-Za-z0-9_-], its JSON Schema). A malformed one is reported, not thrown: the
 * request then goes through the plain flow (docs/api.md "x402 extensions": a malformed extension never blocks paying).
 */
export function readPaymentIdentifier(payload: PaymentPayload): PaymentIdentifierReading {
  try {
    const { id, validation } = extractAndValidatePaymentIdentifier(withoutEchoedSchema(payload) as never);
    if (!validation.valid) return { id: null, invalid: validation.errors ?? ['invalid payment identifier'] };
    return id === null ? { id: null } : { id };
  } catch (e) {
    return { id: null, invalid: [e instanceof Error ? e.message : 'unreadable payment identifier'] };
  }
}

const DECLARED_SCHEMA = JSON.stringify((declarePaymentIdentifierExtension(false) as { schema?: unknown }).schema);

/**
 * The payload with the extension's `schema` left out when it is the very schema our 402
 * declared (clients echo the declaration back). The extension validates `info` against the
 * echoed schema by compiling it with a new Ajv on every call — several milliseconds of CPU per
 * paid request, the largest single cost of the paid path in the profile — and for our own schema
 * that check is exactly the checks it also makes without one (`required` a boolean, `id` 16–128
 * of [A-Za-z0-9_-]). Any other schema is still compiled and checked.
 */
function withoutEchoedSchema(payload: PaymentPayload): PaymentPayload {
  const ext = payload.extensions?.[PAYMENT_IDENTIFIER] as { schema?: unknown } | null | undefined;
  if (!ext || typeof ext !== 'object' || ext.schema === undefined || JSON.stringify(ext.schema) !== DECLARED_SCHEMA) return payload;
  const { schema: _echoed, ...rest } = ext;
  return { ...payload, extensions: { ...payload.extensions, [PAYMENT_IDENTIFIER]: rest } };
}

/** The `payment-identifier` entry of a 402's `extensions`: ids are welcome, not required. */
export function paymentIdentifierDeclaration(): Record<string, unknown> {
  return { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
}

/**
 * The EIP-2612 gas-sponsoring extension, where a 402 offers `upto` (docs/payments.md "Pay up to"):
 * a payer whose asset allowance to Permit2 is short signs the asset's EIP-2612 permit for it, and
 * the facilitator submits it with the settlement (the proxy's `settleWithPermit`) — no approval
 * transaction of the payer's own. Every payment asset (USDC, EURC) has EIP-2612.
 */
export function gasSponsoringDeclaration(accepts: readonly PaymentRequirements[]): Record<string, unknown> {
  return accepts.some((a) => a.scheme === 'upto') ? declareEip2612GasSponsoringExtension() : {};
}

/**
 * What every 402 of a paid route declares beside Bazaar, made for that 402 (its resource and
 * accepts): the payment-identifier declaration, the EIP-2612 gas sponsoring of its upto offers,
 * the offers signed by the service, and a fresh Sign-In-With-X challenge on the 402's networks
 * (HTTP's: a proof travels in a header, which MCP has not). Each is made on its own: one that fails
 * is left out and logged, the others and the 402 go out.
 */
export function paymentRequiredExtensions(
  makers: { receiptSigner: ReceiptSigner | null; walletProofs: WalletProofVerifier },
  logger: Logger,
  options: { signInWithX: boolean } = { signInWithX: true },
): PaymentRequiredEnricher {
  return async (required, wanted = {}) => {
    const accepts = required.accepts as PaymentRequirements[];
    const networks = [...new Set(accepts.map((a) => a.network))].filter(isNetwork);
    const made: [string, Promise<unknown>][] = options.signInWithX && wanted.signInWithX !== false ? [[SIGN_IN_WITH_X, makers.walletProofs.challenge(required.resource.url, networks)]] : [];
    if (makers.receiptSigner && accepts.length > 0) made.push([OFFER_RECEIPT_KEY, makers.receiptSigner.signOffers(required.resource.url, accepts)]);
    const settled = await Promise.allSettled(made.map(([, p]) => p));
    const extensions: Record<string, unknown> = { ...paymentIdentifierDeclaration(), ...gasSponsoringDeclaration(accepts) };
    settled.forEach((r, i) => {
      const key = made[i]![0];
      if (r.status === 'fulfilled') extensions[key] = r.value;
      else logger.warn('a 402 extension could not be made; the 402 goes out without it', { extension: key, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
    });
    return extensions;
  };
}
