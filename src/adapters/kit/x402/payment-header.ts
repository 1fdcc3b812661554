/**
 * A payment as it travels in a header (x402 v2 `PAYMENT-SIGNATURE`; some MCP clients send the same
 * string in `_meta["x402/payment"]`): base64 of the JSON, UTF-8, read exactly as @x402/core's
 * `decodePaymentSignatureHeader` reads it — its base64 check, then the JSON — through Node's
 * Buffer (a visible share of a paid request's CPU otherwise, docs/performance.md).
 * test/adapters/http/x402-headers.test.ts holds it equal to the package's.
 */

/** What @x402/core accepts as a header's base64 before decoding it. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The JSON a payment header holds; throws on anything else (a length `atob` refuses is refused too). */
export function decodePaymentHeader(header: string): unknown {
  if (!BASE64.test(header) || header.replace(/=+$/, '').length % 4 === 1) throw new Error('Invalid payment signature header');
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}
