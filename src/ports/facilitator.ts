/**
 * An x402 facilitator: verifies and settles payments. The shapes are the x402 v2 wire shapes,
 * so the official packages' objects pass through unchanged.
 */
export interface PaymentRequirements {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface ResourceInfo {
  url: string;
  description?: string;
  mimeType?: string;
}

export interface PaymentPayload {
  /**
   * 2; or 1 for an x402 v1 payment its transport mapped into these shapes (decision 0046): an
   * adapter then verifies and settles it on its facilitator's v1 path, and answers with CAIP-2
   * networks as for v2.
   */
  x402Version: number;
  resource?: ResourceInfo;
  accepted: PaymentRequirements;
  payload: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

export interface VerifyResult {
  isValid: boolean;
  invalidReason?: string;
  invalidMessage?: string;
  payer?: string;
  /** What the scheme adds (batch-settlement: the channel's on-chain state). */
  extra?: Record<string, unknown>;
}

export interface SettleResult {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: string;
  /** What moved, where the scheme says (batch-settlement, upto). */
  amount?: string;
  /** What the scheme adds (batch-settlement: the channel's state after the transaction). */
  extra?: Record<string, unknown>;
}

export interface SupportedKind {
  x402Version: number;
  scheme: string;
  network: string;
  extra?: Record<string, unknown>;
}

/**
 * The outcome of a settlement is unknown (a timeout, a dropped connection): the transfer may or
 * may not happen. Never a failure: the payment stays SETTLING for the reconciler.
 */
export class SettlementIndeterminate extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SettlementIndeterminate';
  }
}

export interface Facilitator {
  /** Throws FacilitatorError when the facilitator cannot answer properly. */
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult>;
  /** Throws SettlementIndeterminate when the outcome is unknown, FacilitatorError for a bad answer. */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult>;
  supported(): Promise<SupportedKind[]>;
}
