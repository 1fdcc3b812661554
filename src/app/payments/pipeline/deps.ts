/**
 * What the steps of a paid request work with, and the request as a transport hands it over. Nothing
 * here is HTTP: the Koa adapter fills `PaidRequest` from its headers, another transport would fill
 * it from its own messages.
 */
import type { Payment } from '../../../domain/payment.js';
import type { Facilitator, PaymentPayload, ResourceInfo } from '../../../ports/facilitator.js';
import type { Logger } from '../../../ports/logger.js';
import type { NetworkDetector } from '../../../ports/network-detector.js';
import type { ReceiptSigner } from '../../../ports/receipt-signer.js';
import type { VoucherSignatures } from '../../../ports/signatures.js';
import type { WalletProofVerifier } from '../../../ports/wallet-proof-verifier.js';
import type { AppDeps } from '../../kit/deps.js';
import type { AnyEntrypoint } from '../../kit/catalogue/entrypoint.js';
import type { AppMetrics } from '../../kit/metrics.js';

export interface PipelineDeps extends AppDeps {
  facilitator: Facilitator;
  /** The batch-settlement scheme's channel ids and voucher signatures (docs/payments.md "Pay once, call many"). */
  vouchers: VoucherSignatures;
  detector: NetworkDetector;
  logger: Logger;
  metrics: AppMetrics;
  /** When detection cannot answer: fall back to the payment's network, or refuse (503). */
  detectionFailClosed: boolean;
  /** How long a duplicate request waits for the first one's answer before a 202. */
  replayWaitMs: number;
  /** Sign-In-With-X proofs of unpaid requests (docs/api.md, "Sign-In-With-X"). */
  walletProofs: WalletProofVerifier;
  /** Signs the receipt of every settlement (docs/api.md, "Signed offers and receipts"); null: no receipts. */
  receiptSigner: ReceiptSigner | null;
  /** How long paid access an entrypoint grants (`grantsAccess`) lasts: INFO_ACCESS_SECONDS. */
  accessGrantSeconds: number;
  /** Test-only seams to simulate a crash at a precise step. */
  hooks?: { afterSettle?: (payment: Payment) => Promise<void> };
}

export interface PaidRequest {
  entrypoint: AnyEntrypoint;
  /** The raw input (body or body.input), validated by the entrypoint. */
  rawInput: unknown;
  resource: ResourceInfo;
  walletHint?: string | undefined;
  /** The decoded payment, or undefined when the request carries none. */
  payment?: PaymentPayload | undefined;
  /** A Sign-In-With-X proof: read only when the request carries no payment. */
  walletProof?: string | undefined;
  /** The payment's valid `payment-identifier` (docs/api.md, "Payment identifier"); a malformed one is dropped by the transport. */
  paymentIdentifier?: string | null | undefined;
  /** For the operator's log lines. */
  requestId?: string | undefined;
}
