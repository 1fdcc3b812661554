/**
 * Signed offers and receipts (docs/api.md "Signed offers and receipts", x402's `offer-receipt` extension): the 402's offers are
 * signed by the service, and after settlement the payer gets a signed receipt — both verifiable
 * by anyone against the service's signing address. The shapes are the extension's wire shapes.
 */
import type { PaymentRequirements } from './facilitator.js';

/** The extension's key in `extensions` of a 402 and of a settlement response (the package's OFFER_RECEIPT). */
export const OFFER_RECEIPT_KEY = 'offer-receipt';

export interface OfferPayload {
  version: number;
  resourceUrl: string;
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  /** Unix seconds after which the offer no longer holds. */
  validUntil: number;
}

export interface ReceiptPayload {
  version: number;
  network: string;
  resourceUrl: string;
  payer: string;
  /** Unix seconds. */
  issuedAt: number;
  transaction: string;
}

export type SignedOffer =
  | { format: 'eip712'; acceptIndex?: number; payload: OfferPayload; signature: string }
  | { format: 'jws'; acceptIndex?: number; signature: string };

export type SignedReceipt = { format: 'eip712'; payload: ReceiptPayload; signature: string } | { format: 'jws'; signature: string };

/** `extensions['offer-receipt']` of a 402: one signed offer per accepted requirement, by index. */
export interface OffersExtension {
  info: { offers: SignedOffer[] };
  schema: Record<string, unknown>;
}

/** `extensions['offer-receipt']` of a settlement response (PAYMENT-RESPONSE). */
export interface ReceiptExtension {
  info: { receipt: SignedReceipt };
  schema: Record<string, unknown>;
}

export interface ReceiptSigner {
  /** The address whose key signs: what clients check offers and receipts against. */
  readonly signer: string;
  /** Signs the offers of a 402 for `resourceUrl`; `accepts` is the 402's list (never empty). */
  signOffers(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<OffersExtension>;
  /** Signs the receipt of a settled payment: who paid, for what, on which network, in which transaction. */
  signReceipt(receipt: { resourceUrl: string; payer: string; network: string; transaction: string }): Promise<ReceiptExtension>;
}
