/**
 * The x402 v1 clients the tests pay with, from this package's own node_modules (decision 0069;
 * installed by test/support/v1-clients.ts): the only file tests import them from. Versions in
 * ./package.json — the ones docs/clients.md says are tested.
 */
export { createSigner, decodeXPaymentResponse, wrapFetchWithPayment } from 'x402-fetch';
export { withPaymentInterceptor } from 'x402-axios';
export { createPaymentHeader } from 'x402/client';
export { PaymentPayloadSchema, PaymentRequirementsSchema } from 'x402/types';
export { default as axios } from 'axios';
