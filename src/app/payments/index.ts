/**
 * x402 payments (docs/payments.md): the pipeline from 402 to applied, offers, extensions, receivePaidCall; the reads of payments, deliveries, payouts and asset prices.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { paymentReads } from './catalogue.js';
export { purgeSpentProofs } from './extensions/wallet-proof.js';
export { PaymentFlow } from './payment-flow.js';
export { PAYMENT_REASONS } from './payment-reasons.js';
export { refund, resumeApplication, settledOnChain } from './pipeline/application.js';
export { release } from './pipeline/claim.js';
export { type PipelineDeps } from './pipeline/deps.js';
export { markSettled } from './pipeline/settlement.js';
export { claimChannels, CLAIM_DEFAULTS, type ClaimPassOptions } from './batch/channel-claims.js';
