/**
 * `tools/list` and `tools/call` over the application: a free tool runs its use case; a paid tool
 * goes through receivePaidCall (src/app/payments/receive-paid-call.ts) exactly as its HTTP
 * route does — the call in (its resource `mcp://tool/<name>`, the payment from
 * `_meta["x402/payment"]`, the wallet named in `_meta["launchpad/wallet"]`), the PaidOutcome out
 * as a tool result (tool-results.ts). No second payment flow: the same offers, ledger, replay
 * rules, FAILED rule, receipts and payment identifiers.
 */
import { ProtocolErrorCode, type CallToolRequest, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { agentTools, type AgentTool, type FreeTool, type PaidTool } from '../../../app/agent-tools.js';
import type { Application } from '../../../app/application.js';
import { errorEnvelope, statusOfError } from '../../../app/kit/error-status.js';
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import { receivePaidCall } from '../../../app/payments/receive-paid-call.js';
import { paymentState } from '../../../app/payments/get-payment.js';
import { verifiedIn } from '../../../app/payments/pipeline/outcome.js';
import { mcpToolResource } from '../../../app/payments/resource.js';
import { parseWith } from '../../../app/kit/schemas.js';
import { DomainError, PaymentInvalid } from '../../../domain/errors.js';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import { mcpBazaarExtension, BAZAAR } from './mcp-bazaar.js';
import { toolListing } from './tool-listing.js';
import { PAYMENT_META, paymentRequiredResult, WALLET_META, type PaymentRequiredLike } from '../../kit/mcp/x402-mcp.js';
import { decodePaymentHeader } from '../../kit/x402/payment-header.js';
import { paymentRequiredExtensions, readPaymentIdentifier, type PaymentRequiredEnricher } from '../../kit/x402/x402-extensions.js';
import { protocolError } from './protocol-error.js';
import { domainErrorResult, errorResult, refusalResult, storedResult, successResult } from './tool-results.js';

/** One call as the endpoint hands it over. */
export interface CallContext {
  requestId: string;
  /** Set when the facilitator verified a payment in this call: a paid call is not counted against the free budget. */
  paymentVerified: boolean;
}

export class ToolCalls {
  readonly tools: ReadonlyMap<string, AgentTool>;
  /** The `tools/list` answer: built once. */
  readonly listing: Tool[];
  private readonly enrich: PaymentRequiredEnricher;

  constructor(private readonly application: Application) {
    const tools = agentTools(application.entrypoints);
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.listing = tools.map((t) => toolListing(t, application.deps.settings));
    // A proof of the wallet (Sign-In-With-X) travels in an HTTP header: MCP's 402 does not ask for one.
    this.enrich = paymentRequiredExtensions(application.deps, application.logger, { signInWithX: false });
  }

  /** Whether a `tools/call` names a paid tool and carries a payment (counted against the free budget only when it does not verify). */
  carriesPayment(params: { name?: unknown; _meta?: unknown }): boolean {
    const tool = typeof params.name === 'string' ? this.tools.get(params.name) : undefined;
    const meta = params._meta as Record<string, unknown> | undefined;
    return tool?.kind === 'paid' && meta !== undefined && meta !== null && meta[PAYMENT_META] !== undefined;
  }

  async call(params: CallToolRequest['params'], ctx: CallContext): Promise<CallToolResult> {
    const tool = this.tools.get(params.name);
    if (!tool) throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}. tools/list names every tool.`);
    try {
      return tool.kind === 'free' ? await this.free(tool, params.arguments ?? {}) : await this.paid(tool, params, ctx);
    } catch (e) {
      return this.failure(e, tool, ctx);
    }
  }

  private async free(tool: FreeTool, args: unknown): Promise<CallToolResult> {
    const input: unknown = parseWith(tool.inputSchema, args);
    return successResult(await tool.run(this.application.deps, input));
  }

  private async paid(tool: PaidTool, params: CallToolRequest['params'], ctx: CallContext): Promise<CallToolResult> {
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const ep = tool.entrypoint;
    const { outcome, payer } = await receivePaidCall(this.application, {
      entrypoint: ep,
      input: params.arguments ?? {},
      resource: { url: mcpToolResource(tool.name), description: ep.description, mimeType: 'application/json' },
      wallet: meta[WALLET_META] === undefined ? undefined : { value: meta[WALLET_META], field: `_meta.${WALLET_META}` },
      payment: meta[PAYMENT_META] === undefined ? undefined : { read: () => readPayment(meta[PAYMENT_META]), identify: (p) => readPaymentIdentifier(p).id },
      requestId: ctx.requestId,
      logAs: { tool: tool.name },
    });
    ctx.paymentVerified = verifiedIn(outcome);
    switch (outcome.kind) {
      case 'challenge': {
        const required = await this.withExtensions(tool, { ...outcome.paymentRequired, error: `Payment required to call ${tool.name}.` });
        return paymentRequiredResult(required, `Payment required to call ${tool.name}: sign one of accepts and call again with _meta["${PAYMENT_META}"].`);
      }
      case 'granted':
        return successResult(outcome.result);
      default: {
        const pendingId = outcome.response.status === 202 ? (outcome.response.body as { data?: { paymentId?: string } }).data?.paymentId : undefined;
        return storedResult(outcome.response, payer, pendingId ? await paymentState(this.application.deps, pendingId) : null);
      }
    }
  }

  /** A thrown error as a tool result: a refusal with its fresh offers is the x402 402 result; an unknown error a generic one, logged. */
  private async failure(e: unknown, tool: AgentTool, ctx: CallContext): Promise<CallToolResult> {
    if (e instanceof DomainError && e.code !== 'INTERNAL_ERROR') {
      if (statusOfError(e as DomainError & { status?: number }) >= 500) {
        this.application.logger.error('tool call answered with a server error', { requestId: ctx.requestId, tool: tool.name, code: e.code, error: e.message });
      }
      const offers = e.details?.paymentRequired as PaymentRequiredLike | undefined;
      if (tool.kind === 'paid' && offers) return refusalResult(e, await this.withExtensions(tool, offers));
      return domainErrorResult(e);
    }
    this.application.logger.error('unhandled error in a tool call', {
      requestId: ctx.requestId,
      tool: tool.name,
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    });
    return errorResult(errorEnvelope('INTERNAL_ERROR', `Internal error. Quote request id ${ctx.requestId} when reporting it.`, { requestId: ctx.requestId }));
  }

  /** Every 402 of a paid tool declares Bazaar (its MCP form) and the extensions made for it (signed offers, payment identifier). */
  private async withExtensions(tool: PaidTool, required: PaymentRequiredLike): Promise<PaymentRequiredLike> {
    let made: Record<string, unknown> = {};
    try {
      made = await this.enrich({ resource: required.resource ?? { url: mcpToolResource(tool.name) }, accepts: required.accepts });
    } catch (e) {
      this.application.logger.warn('402 extensions could not be made; the 402 goes out without them', { error: e instanceof Error ? e.message : String(e) });
    }
    return { ...required, extensions: { [BAZAAR]: mcpBazaarExtension(tool), ...made, ...required.extensions } };
  }
}

/**
 * `_meta["x402/payment"]`: the PaymentPayload object the transport defines, or (as some clients
 * send it) the base64 string an HTTP client puts in PAYMENT-SIGNATURE. Anything else is refused as
 * no payment at all.
 */
export function readPayment(value: unknown): PaymentPayload {
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = decodePaymentHeader(value);
    } catch {
      decoded = undefined;
    }
  }
  const payload = decoded as Partial<PaymentPayload> | undefined;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload) || typeof payload.payload !== 'object' || payload.payload === null) {
    throw new PaymentInvalid(`_meta["${PAYMENT_META}"] is not an x402 PaymentPayload (an object with x402Version, accepted and payload, made from the PaymentRequired).`, {
      reason: PAYMENT_REASONS.invalidPayload,
    });
  }
  return payload as PaymentPayload;
}
