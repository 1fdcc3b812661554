/**
 * The `details.reason` strings a client may see on a payment answer (402 PAYMENT_INVALID, 202
 * pending, stored final answers), named once like the official x402 packages name theirs.
 * Facilitator reasons (e.g. `invalid_exact_evm_insufficient_balance`) pass through unchanged.
 */
export const PAYMENT_REASONS = {
  /** PAYMENT-SIGNATURE is not base64 JSON of an x402 payload. */
  invalidSignatureHeader: 'invalid_payment_signature_header',
  /** X-PAYMENT is not base64 JSON of an x402 v1 payload (decision 0046). */
  invalidXPaymentHeader: 'invalid_x_payment_header',
  /** Not x402 v2 (or v1 from X-PAYMENT), or a network the service does not serve. */
  unsupportedPayment: 'unsupported_payment',
  /** The payload is not what its scheme sends (exact: an EIP-3009 authorization; upto: a Permit2 transfer; batch-settlement: a voucher). */
  invalidPayload: 'invalid_payload',
  /** `accepted.amount` is not exactly the price. */
  invalidAmount: 'invalid_amount',
  /** The authorization's `validBefore` has passed (or leaves too little time to settle). */
  authorizationExpired: 'authorization_expired',
  /** The payment pays the amount of an asset quote whose 60 s hold expired, and the price is another now. */
  quoteExpired: 'quote_expired',
  /** The held asset quote is farther than QUOTE_MAX_SPREAD_BPS from the live price: not honoured. */
  quoteMoved: 'quote_moved',
  /** Asset, recipient or scheme differ from every offered requirement. */
  requirementsMismatch: 'requirements_mismatch',
  /** The signed authorization does not move exactly the price to the treasury (an upto payment's: not the offer's asset, to the treasury, through the upto proxy, settled by our facilitator). */
  authorizationMismatch: 'authorization_mismatch',
  /** An upto payment's signed maximum is below the operation's price (docs/payments.md "Pay up to"). */
  uptoBelowPrice: 'upto_maximum_below_price',
  /** An upto payment's signed maximum is above the most its upto offer lets a payer authorize. */
  uptoAboveOffer: 'upto_maximum_above_offer',
  /** The payload names no resource (x402 v2 `resource.url`). */
  resourceMissing: 'resource_missing',
  /** The payload was made for another resource. */
  resourceMismatch: 'resource_mismatch',
  /** The facilitator recovered another payer than `authorization.from`. */
  payerMismatch: 'payer_mismatch',
  /** The facilitator refused without a reason. */
  invalidPayment: 'invalid_payment',
  /** Another signature for an authorization nonce already used. */
  nonceAlreadyUsed: 'nonce_already_used',
  /** The price moved between verification and the re-check. */
  priceChanged: 'price_changed',
  /** 202: the settlement's outcome is not known yet (timeout, error, unconfirmed). */
  settlementUnknown: 'settlement_unknown',
  /** 202: the same payment is still being processed by another request. */
  inFlight: 'in_flight',
  /** 202: settled, the operation is being applied. */
  applyPending: 'apply_pending',
  /** Final: the authorization was never used and can no longer be; nothing was charged. */
  settlementFailed: 'settlement_failed',
  /** Final: the request died before settlement; nothing was charged. */
  interruptedBeforeSettlement: 'interrupted_before_settlement',
  /** Refund: the operation could not be applied for too long after settlement. */
  applyFailed: 'apply_failed',
  /** Refund: the authorization was used although the payment had been closed unsettled. */
  usedAfterClose: 'used_after_close',
} as const;
