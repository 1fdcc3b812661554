/**
 * Our x402 header codec is @x402/core's format byte for byte: what official clients send and
 * read (the 402's header with non-ASCII text, a payment payload echoing a 402 with its Bazaar
 * metadata, a settlement answer), and what the package refuses, refused. The header keeps only the
 * extensions a client acts on and the resource without its description (decision 0034).
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import { decodePaymentSignature, encodePaymentRequired, encodePaymentResponse } from '../../../src/adapters/http/koa/x402-headers.js';
import { PaymentInvalid } from '../../../src/domain/errors.js';

const required = {
  x402Version: 2,
  resource: { url: 'http://127.0.0.1:3000/entrypoints/token_buy_usd', description: 'Spend exactly usdAmount — fee included: 1 % 🚀', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } }],
  extensions: { bazaar: { info: { input: { type: 'http', method: 'POST', body: { name: '𝔏𝔞𝔲𝔫𝔠𝔥 ünïcødé' } } }, schema: { type: 'object', pattern: '^\\d+(\\.\\d{1,6})?$' } } },
};
const payload = {
  x402Version: 2,
  resource: required.resource,
  accepted: required.accepts[0],
  payload: { signature: `0x${'ab'.repeat(65)}`, authorization: { from: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', nonce: `0x${'01'.repeat(32)}` } },
  extensions: required.extensions,
};

describe('x402 headers', () => {
  it('PAYMENT-REQUIRED and PAYMENT-RESPONSE are the bytes @x402/core writes', () => {
    const identifier = { info: { required: false, note: 'ünïcødé 🚀' } };
    const { description: _inTheBody, ...resource } = required.resource;
    const inHeader = { x402Version: 2, accepts: required.accepts, resource, extensions: { 'payment-identifier': identifier } };
    expect(encodePaymentRequired({ ...required, extensions: { ...required.extensions, 'payment-identifier': identifier } })).toBe(encodePaymentRequiredHeader(inHeader as never));
    const settlement = { success: true, transaction: `0x${'cd'.repeat(32)}`, network: 'eip155:84532', payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', extensionResponses: { x: 1 }, extensions: { receipt: { signature: 'é' } } };
    expect(encodePaymentResponse(settlement as never)).toBe(encodePaymentResponseHeader(settlement as never));
  });

  it('a PAYMENT-SIGNATURE reads as @x402/core reads it, for any length of padding', () => {
    for (let pad = 0; pad < 3; pad++) {
      const p = { ...payload, extensions: { ...payload.extensions, pad: 'x'.repeat(pad) } };
      const header = encodePaymentRequiredHeader(p as never);
      expect(decodePaymentSignature(header)).toEqual(decodePaymentSignatureHeader(header));
    }
  });

  it.each([
    ['not base64', 'not base64!'],
    ['a length no base64 has', 'QUJDR'],
    ['base64 of something that is not JSON', Buffer.from('{not json').toString('base64')],
    ['JSON without a payload', Buffer.from('{"x402Version":2}').toString('base64')],
  ])('%s is refused, as the package refuses it', (_what, header) => {
    expect(() => decodePaymentSignature(header)).toThrow(PaymentInvalid);
  });
});
