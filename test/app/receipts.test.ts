import { OFFER_RECEIPT } from '@x402/extensions/offer-receipt';
import { extractReceiptFromResponse } from '@x402/extensions/offer-receipt';
import { describe, expect, it } from 'vitest';
import { encodePaymentResponse } from '../../src/adapters/http/koa/x402-headers.js';
import { FakeReceiptSigner } from '../../src/adapters/receipts/fake/fake-receipt-signer.js';
import { receiptOf, withReceipt } from '../../src/app/payments/extensions/receipts.js';
import { getPayment } from '../../src/app/payments/get-payment.js';
import { TESTNET } from '../../src/domain/network.js';
import { OFFER_RECEIPT_KEY } from '../../src/ports/receipt-signer.js';
import { makeDeps } from '../support/app-harness.js';
import { payment } from '../support/fixtures.js';

const settlement = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: TESTNET, payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' };

describe('receipts with the stored answer', () => {
  it('the port names the extension as the package does', () => {
    expect(OFFER_RECEIPT_KEY).toBe(OFFER_RECEIPT);
  });

  it('a receipt attached to the settlement rides in PAYMENT-RESPONSE, where the client helper finds it', async () => {
    const deps = makeDeps();
    const signed = await new FakeReceiptSigner(deps.clock).signReceipt({ resourceUrl: 'https://x.example/entrypoints/token_info', ...settlement });
    const receipted = withReceipt(settlement, signed);
    expect(receipted).toMatchObject(settlement);
    const res = new Response(null, { headers: { 'PAYMENT-RESPONSE': encodePaymentResponse(receipted) } });
    expect(extractReceiptFromResponse(res)).toEqual(signed.info.receipt);
  });

  it('GET /api/payments/:id shows the receipt stored with the answer, and null without one', async () => {
    const deps = makeDeps();
    const paid = payment({ state: 'APPLIED' });
    await deps.uow.run((s) => s.payments.claim(paid));
    expect((await getPayment(deps, paid.paymentId)).receipt).toBeNull();
    await deps.uow.run((s) => s.payments.saveResponse(paid.paymentId, { status: 200, body: {}, headers: {}, settlement }));
    expect((await getPayment(deps, paid.paymentId)).receipt).toBeNull();
    const signed = await new FakeReceiptSigner(deps.clock).signReceipt({ resourceUrl: 'https://x.example/entrypoints/token_info', ...settlement });
    const stored = { status: 200, body: {}, headers: {}, settlement: withReceipt(settlement, signed) };
    await deps.uow.run((s) => s.payments.saveResponse(paid.paymentId, stored));
    const view = await getPayment(deps, paid.paymentId);
    expect(view).toMatchObject({ paymentId: paid.paymentId, state: 'APPLIED', receipt: signed.info.receipt });
    expect(receiptOf(null)).toBeNull();
  });
});
