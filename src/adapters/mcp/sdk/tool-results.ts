/**
 * What a tool call answers, as MCP tool results: the same answers the HTTP API gives, in MCP's
 * shape (docs/agents.md "What a tool answers").
 *
 * - A success: `structuredContent` is the answer's `data` (what the HTTP envelope wraps), the same
 *   JSON in `content[0].text`; a paid one carries its settlement in `_meta["x402/payment-response"]`.
 * - A settlement not final yet (HTTP's 202): not an error — `structuredContent` names the payment
 *   and its state; get_payment finishes the story, the reconciler finishes the payment.
 * - An error: `isError: true` and the HTTP error envelope (`code`, `message`, `details`) as JSON in
 *   `content[0].text`, with no `structuredContent` (clients validate that against the tool's output
 *   schema). A refused payment is the x402 transport's 402 result instead (x402-mcp.ts), with the
 *   envelope after the x402 error.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { errorEnvelope, type ErrorEnvelope } from '../../../app/kit/error-status.js';
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import type { DomainError } from '../../../domain/errors.js';
import type { SettlementReceipt, StoredResponse } from '../../../ports/payment-store.js';
import { PAYMENT_RESPONSE_META, paymentRequiredResult, type PaymentRequiredLike } from '../../kit/mcp/x402-mcp.js';

const text = (value: unknown) => ({ type: 'text' as const, text: JSON.stringify(value) });

const settled = (settlement: SettlementReceipt | undefined) => (settlement ? { _meta: { [PAYMENT_RESPONSE_META]: settlement } } : {});

export function successResult(data: unknown, settlement?: SettlementReceipt): CallToolResult {
  return { structuredContent: data as Record<string, unknown>, content: [text(data)], ...settled(settlement) };
}

export function errorResult(envelope: ErrorEnvelope, meta?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [text(envelope)], ...(meta ? { _meta: meta } : {}) };
}

export function domainErrorResult(e: DomainError): CallToolResult {
  return errorResult(errorEnvelope(e.code, e.message, e.details));
}

/**
 * A refusal that carries the fresh offers (`details.paymentRequired`: PAYMENT_INVALID,
 * NETWORK_MISMATCH): the x402 402 result, its `error` the refusal's message; the envelope (without
 * the offers again) after it. Any other refusal is a plain error result.
 */
export function refusalResult(e: DomainError, required: PaymentRequiredLike | null): CallToolResult {
  if (!required) return domainErrorResult(e);
  const { paymentRequired: _offers, ...details } = e.details ?? {};
  return paymentRequiredResult({ ...required, error: e.message }, e.message, [text(errorEnvelope(e.code, e.message, details))]);
}

/** Who paid, for a settlement response the stored answer does not hold. */
export interface Payer {
  network: string;
  payer: string;
}

/**
 * A payment's answer as it was stored (the first answer, or a replay of it). `state`: the payment's
 * state when the answer is "pending".
 */
export function storedResult(res: StoredResponse, payer: Payer | null, state: string | null): CallToolResult {
  const body = res.body as { success: boolean; data?: unknown };
  if (res.status === 202) return pendingResult(body.data as Record<string, unknown>, state);
  if (body.success) return successResult(body.data, res.settlement);
  const envelope = res.body as ErrorEnvelope;
  if (res.settlement) return errorResult(envelope, { [PAYMENT_RESPONSE_META]: res.settlement });
  // The chain proved the authorization can never be settled: the x402 transport's failed settlement.
  if (envelope.error?.details?.reason === PAYMENT_REASONS.settlementFailed && payer) {
    return errorResult(envelope, {
      [PAYMENT_RESPONSE_META]: { success: false, errorReason: PAYMENT_REASONS.settlementFailed, transaction: '', network: payer.network, payer: payer.payer },
    });
  }
  return errorResult(envelope);
}

function pendingResult(data: Record<string, unknown>, state: string | null): CallToolResult {
  const pending = { ...data, ...(state ? { state } : {}) };
  const paymentId = String(data.paymentId);
  return {
    structuredContent: pending,
    content: [
      text(pending),
      {
        type: 'text',
        text: `Payment ${paymentId} is not final yet${state ? ` (state ${state})` : ''}: the settlement did not confirm in time. Do not pay again: call get_payment with paymentId "${paymentId}" until its state is APPLIED (done), REFUNDED (paid back) or FAILED (nothing charged).`,
      },
    ],
  };
}
