/**
 * The pure mapping between the payment pipeline's answers and MCP tool results, and the x402 MCP
 * transport's encodings read back in every form the ecosystem writes.
 */
import { describe, expect, it } from 'vitest';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { PAYMENT_RESPONSE_META, paymentRequiredOf, paymentRequiredResult, settlementOf, X402_ERROR } from '../../../src/adapters/kit/mcp/x402-mcp.js';
import { readPayment } from '../../../src/adapters/mcp/sdk/tool-calls.js';
import { refusalResult, storedResult, successResult } from '../../../src/adapters/mcp/sdk/tool-results.js';
import { errorEnvelope, successEnvelope } from '../../../src/app/kit/error-status.js';
import { pendingResponse } from '../../../src/app/payments/pipeline/outcome.js';
import { NetworkMismatch, PaymentInvalid, ValidationError } from '../../../src/domain/errors.js';

const required = {
  x402Version: 2,
  resource: { url: 'mcp://tool/create_token', description: 'Create a token', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } }],
};
const settlement = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:84532', payer: '0x976EA74026E726554dB657fA54763abd0C3a0aa9' };
const payer = { network: 'eip155:84532', payer: settlement.payer };
const text = (r: { content: unknown[] }, i = 0) => JSON.parse((r.content[i] as { text: string }).text);

describe('the x402 MCP 402', () => {
  it('carries the PaymentRequired in structuredContent and, under x402/error, in content[0].text', () => {
    const result = paymentRequiredResult(required, 'Payment required');
    expect(result).toMatchObject({ isError: true, structuredContent: required });
    expect(text(result)).toEqual({ [X402_ERROR]: { code: 402, message: 'Payment required', data: required } });
  });

  it('is read back from every form clients and servers write', () => {
    const wrapped = JSON.stringify({ [X402_ERROR]: { code: 402, data: required } });
    expect(paymentRequiredOf(paymentRequiredResult(required, 'x'))).toEqual(required);
    expect(paymentRequiredOf({ isError: true, content: [{ type: 'text', text: wrapped }] })).toEqual(required);
    expect(paymentRequiredOf({ isError: true, content: [{ type: 'text', text: JSON.stringify(required) }] })).toEqual(required);
    expect(paymentRequiredOf({ isError: true, content: [], _meta: { [X402_ERROR]: required } })).toEqual(required);
    // Not a 402: a success, another error, text that is no JSON.
    expect(paymentRequiredOf({ structuredContent: required, content: [] })).toBeNull();
    expect(paymentRequiredOf({ isError: true, content: [{ type: 'text', text: JSON.stringify(errorEnvelope('TOKEN_NOT_FOUND', 'no')) }] })).toBeNull();
    expect(paymentRequiredOf({ isError: true, content: [{ type: 'text', text: 'boom' }] })).toBeNull();
  });

  it('a refusal with fresh offers is a 402 whose error is the refusal, the envelope after it without the offers again', () => {
    const e = new NetworkMismatch('eip155:8453', 'eip155:84532', { paymentRequired: required });
    const result = refusalResult(e, required);
    expect(result.structuredContent).toEqual({ ...required, error: e.message });
    expect(text(result, 1)).toEqual(errorEnvelope('NETWORK_MISMATCH', e.message, { expected: 'eip155:8453', received: 'eip155:84532' }));
    expect(refusalResult(ValidationError.of('usdAmount', 'too many decimals'), null)).toEqual({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(errorEnvelope('VALIDATION_ERROR', 'The request is invalid.', { issues: [{ path: 'usdAmount', message: 'too many decimals' }] })) }],
    });
  });
});

describe('a stored answer as a tool result', () => {
  it('a success: the data in structuredContent and as text, the settlement in _meta', () => {
    const data = { tokenId: 'tok_1', usdSpent: '5' };
    const result = storedResult({ status: 200, body: successEnvelope('buy_token', data), headers: {}, settlement }, payer, null);
    expect(result).toEqual(successResult(data, settlement));
    expect(result).toMatchObject({ structuredContent: data, _meta: { [PAYMENT_RESPONSE_META]: settlement } });
    expect(result.isError).toBeUndefined();
    expect(settlementOf(result)).toEqual(settlement);
  });

  it('a pending settlement: no error, the payment named with its state, and what to do next', () => {
    const result = storedResult(pendingResponse('pay_X', 'settlement_unknown'), payer, 'SETTLING');
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ status: 'pending', paymentId: 'pay_X', reason: 'settlement_unknown', statusUrl: '/api/payments/pay_X', state: 'SETTLING' });
    expect((result.content[1] as { text: string }).text).toMatch(/Do not pay again: call get_payment/);
  });

  it('a refund keeps its settlement (the money moved, and is paid back); a refusal after the claim has none', () => {
    const refunded = storedResult({ status: 409, body: errorEnvelope('SLIPPAGE_EXCEEDED', 'moved', { refund: { payoutId: 'pout_1' } }), headers: {}, settlement }, payer, null);
    expect(refunded).toMatchObject({ isError: true, _meta: { [PAYMENT_RESPONSE_META]: settlement } });
    expect(text(refunded)).toMatchObject({ success: false, error: { code: 'SLIPPAGE_EXCEEDED' } });
    expect(refunded.structuredContent).toBeUndefined();
    const rejected = storedResult({ status: 409, body: errorEnvelope('INSUFFICIENT_BALANCE', 'no'), headers: {} }, payer, null);
    expect(rejected._meta).toBeUndefined();
  });

  it('a settlement the chain proved impossible is the transport\'s failed settlement: success false inside', () => {
    const failed = storedResult({ status: 402, body: errorEnvelope('PAYMENT_INVALID', 'never settled', { reason: 'settlement_failed' }), headers: {} }, payer, null);
    expect(failed).toMatchObject({ isError: true, _meta: { [PAYMENT_RESPONSE_META]: { success: false, errorReason: 'settlement_failed', network: payer.network, payer: payer.payer } } });
  });
});

describe('_meta["x402/payment"]', () => {
  const payload = { x402Version: 2, accepted: required.accepts[0], resource: required.resource, payload: { signature: '0x', authorization: {} } };

  it('takes the PaymentPayload object, or the base64 an HTTP client would send', () => {
    expect(readPayment(payload)).toEqual(payload);
    expect(readPayment(encodePaymentSignatureHeader(payload as never))).toEqual(payload);
  });

  it('refuses anything else as no payment at all', () => {
    for (const junk of ['junk', 42, null, [], { x402Version: 2 }, { payload: 'x' }]) {
      expect(() => readPayment(junk)).toThrow(PaymentInvalid);
    }
  });
});
