/**
 * The x402 MCP transport on the wire (x402 `specs/transports-v2/mcp.md`), shared by the service's
 * MCP server and the stdio bridge that pays for a local agent:
 *
 * - a paid tool called without payment answers a tool result with `isError: true` carrying the
 *   `PaymentRequired` in `structuredContent` and, JSON-encoded as
 *   `{"x402/error":{"code":402,"message":…,"data":<PaymentRequired>}}`, in `content[0].text`;
 * - the client calls again with the `PaymentPayload` in `params._meta["x402/payment"]`;
 * - the answer carries the `SettlementResponse` in `result._meta["x402/payment-response"]`.
 *
 * A reader takes every form the ecosystem writes: `structuredContent`, `content[0].text` plain or
 * under `x402/error`, and `_meta["x402/error"]`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';

export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';
export const X402_ERROR = 'x402/error';
/** Where an MCP client names its wallet before it pays (the HTTP API's X-Wallet-Address): the 402 then offers only its network. */
export const WALLET_META = 'launchpad/wallet';

/** The x402 v2 PaymentRequired, as far as this transport reads it. */
export interface PaymentRequiredLike {
  x402Version: number;
  error?: string;
  resource?: { url: string; description?: string; mimeType?: string };
  accepts: object[];
  extensions?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isPaymentRequired(v: unknown): v is PaymentRequiredLike {
  return isObject(v) && typeof v.x402Version === 'number' && Array.isArray(v.accepts);
}

/**
 * A 402 as a tool result. `extra` joins `content` after the x402 error (our error envelope, so an
 * agent reads the code it can act on, e.g. NETWORK_MISMATCH).
 */
export function paymentRequiredResult(required: PaymentRequiredLike, message: string, extra: CallToolResult['content'] = []): CallToolResult {
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify({ [X402_ERROR]: { code: 402, message, data: required } }) }, ...extra],
  };
}

/** The PaymentRequired a tool result carries, in any of the forms above; null for any other result. */
export function paymentRequiredOf(result: { isError?: boolean; structuredContent?: unknown; content?: unknown; _meta?: unknown }): PaymentRequiredLike | null {
  if (!result.isError) return null;
  if (isPaymentRequired(result.structuredContent)) return result.structuredContent;
  const meta = isObject(result._meta) ? result._meta[X402_ERROR] : undefined;
  if (isPaymentRequired(meta)) return meta;
  const first = Array.isArray(result.content) ? (result.content[0] as unknown) : undefined;
  if (!isObject(first) || first.type !== 'text' || typeof first.text !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(first.text);
  } catch {
    return null;
  }
  if (isPaymentRequired(parsed)) return parsed;
  const wrapped = isObject(parsed) ? parsed[X402_ERROR] : undefined;
  const data = isObject(wrapped) ? wrapped.data : undefined;
  return isPaymentRequired(data) ? data : null;
}

/** The x402 settlement response a result carries in `_meta`, if any. */
export function settlementOf(result: { _meta?: unknown }): { success: boolean; transaction?: string; network?: string; payer?: string; errorReason?: string } | null {
  const meta = isObject(result._meta) ? result._meta[PAYMENT_RESPONSE_META] : undefined;
  return isObject(meta) && typeof meta.success === 'boolean' ? (meta as { success: boolean }) : null;
}
