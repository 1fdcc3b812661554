/**
 * Signed receipts (docs/api.md "Signed offers and receipts") travel in the settlement response (PAYMENT-RESPONSE's
 * `extensions["offer-receipt"]`) and are stored with it, so a replay, a late reader and
 * `GET /api/payments/:id` all get the one receipt issued at settlement.
 */
import type { SettlementReceipt, StoredResponse } from '../../../ports/payment-store.js';
import { OFFER_RECEIPT_KEY, type ReceiptExtension, type SignedReceipt } from '../../../ports/receipt-signer.js';

/** The settlement answer with the signed receipt attached. */
export function withReceipt(settlement: SettlementReceipt, receipt: ReceiptExtension): SettlementReceipt {
  return { ...settlement, extensions: { ...settlement.extensions, [OFFER_RECEIPT_KEY]: receipt } };
}

/** The signed receipt a stored answer carries, if its payment was settled and receipted. */
export function receiptOf(response: StoredResponse | null): SignedReceipt | null {
  const extension = response?.settlement?.extensions?.[OFFER_RECEIPT_KEY] as Partial<ReceiptExtension> | undefined;
  return extension?.info?.receipt ?? null;
}
