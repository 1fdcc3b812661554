/**
 * A remote x402 facilitator over HTTP (/verify, /settle, /supported), with a timeout per call.
 * A settle whose outcome cannot be known (timeout, connection lost after sending, unreadable
 * answer) is SettlementIndeterminate — the money may have moved — never a plain failure.
 */
import { z } from 'zod';
import { FacilitatorError } from '../../../domain/errors.js';
import {
  SettlementIndeterminate,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
  type SupportedKind,
  type VerifyResult,
} from '../../../ports/facilitator.js';
import { facilitatorRequest, fromV1Network } from '../../kit/x402/v1-wire.js';

export interface HttpFacilitatorOptions {
  url: string;
  verifyTimeoutMs?: number;
  settleTimeoutMs?: number;
  headers?: Record<string, string>;
}

const verifySchema = z.object({
  isValid: z.boolean(),
  invalidReason: z.string().optional(),
  invalidMessage: z.string().optional(),
  payer: z.string().optional(),
});
const settleSchema = z.object({
  success: z.boolean(),
  errorReason: z.string().optional(),
  errorMessage: z.string().optional(),
  payer: z.string().optional(),
  transaction: z.string(),
  network: z.string(),
});
const supportedSchema = z.object({
  kinds: z.array(z.object({ x402Version: z.number(), scheme: z.string(), network: z.string(), extra: z.record(z.string(), z.unknown()).optional() })),
});

type Outcome = { status: number; body: unknown } | { failure: 'timeout' | 'refused' | 'network' };

export class HttpFacilitator implements Facilitator {
  private readonly base: string;
  constructor(private readonly options: HttpFacilitatorOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    const out = await this.call('POST', '/verify', this.options.verifyTimeoutMs ?? 10_000, body(payload, requirements));
    if ('failure' in out) throw new FacilitatorError(`The facilitator did not answer verify (${out.failure}).`);
    const parsed = verifySchema.safeParse(out.body);
    if (parsed.success && (out.status < 300 || (out.status < 500 && !parsed.data.isValid))) return parsed.data;
    throw new FacilitatorError(`The facilitator answered verify with HTTP ${out.status}.`);
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    const out = await this.call('POST', '/settle', this.options.settleTimeoutMs ?? 30_000, body(payload, requirements));
    if ('failure' in out) {
      if (out.failure === 'refused') throw new FacilitatorError('The facilitator refused the connection; nothing was settled.');
      throw new SettlementIndeterminate(`settle: ${out.failure}`);
    }
    const parsed = settleSchema.safeParse(out.body);
    if (parsed.success && (out.status < 300 || !parsed.data.success)) return { ...parsed.data, network: fromV1Network(parsed.data.network) };
    throw new SettlementIndeterminate(`settle answered HTTP ${out.status} without a readable settlement`);
  }

  async supported(): Promise<SupportedKind[]> {
    const out = await this.call('GET', '/supported', this.options.verifyTimeoutMs ?? 10_000);
    if ('failure' in out) throw new FacilitatorError(`The facilitator did not answer supported (${out.failure}).`);
    const parsed = supportedSchema.safeParse(out.body);
    if (out.status >= 300 || !parsed.success) throw new FacilitatorError(`The facilitator answered supported with HTTP ${out.status}.`);
    return parsed.data.kinds;
  }

  private async call(method: string, path: string, timeoutMs: number, payload?: unknown): Promise<Outcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...this.options.headers },
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: controller.signal,
      });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed };
    } catch (e) {
      if (controller.signal.aborted) return { failure: 'timeout' };
      const code = (e as { cause?: { code?: string } }).cause?.code;
      return { failure: code === 'ECONNREFUSED' ? 'refused' : 'network' };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The x402 facilitator wire's body; a payment mapped from v1 goes in v1's shapes, to the facilitator's v1 path (decision 0046). */
function body(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) {
  return facilitatorRequest(paymentPayload, paymentRequirements);
}
