/**
 * One GET to a price API, every way it can go wrong turned into a QuoteFailure: 429 (with the
 * Retry-After it gave, seconds or HTTP date), 5xx and other statuses, timeouts and aborts,
 * dropped connections, bodies that are not JSON. Numbers in the body stay exact text.
 */
import { QuoteFailure } from '../../../ports/quote-provider.js';
import { parseJsonExact } from './exact-json.js';

export interface QuoteGet {
  provider: string;
  url: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Safety net when no caller signal bounds the call. */
  timeoutMs: number;
  now: Date;
}

export interface QuoteBody {
  body: unknown;
  /** How long a cache in front of the API held this answer (the Age header), in ms. */
  ageMs: number;
}

export async function getQuoteJson(req: QuoteGet): Promise<QuoteBody> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  if (signal.aborted) throw new QuoteFailure(req.provider, 'timeout', 'the caller stopped waiting');
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, { headers: { accept: 'application/json', ...req.headers }, signal });
    text = await res.text();
  } catch (e) {
    if (signal.aborted) throw new QuoteFailure(req.provider, 'timeout', `no answer within the time allowed`);
    throw new QuoteFailure(req.provider, 'unavailable', `request failed: ${(e as Error).message}`);
  }
  if (res.status === 429) {
    throw new QuoteFailure(req.provider, 'rate-limited', 'HTTP 429', retryAfterMs(res.headers.get('retry-after'), req.now));
  }
  if (res.status < 200 || res.status > 299) throw new QuoteFailure(req.provider, 'unavailable', `HTTP ${res.status}`);
  let body: unknown;
  try {
    body = parseJsonExact(text);
  } catch {
    throw new QuoteFailure(req.provider, 'malformed', 'the body is not JSON');
  }
  const age = Number(res.headers.get('age') ?? '0');
  return { body, ageMs: Number.isFinite(age) && age > 0 ? age * 1000 : 0 };
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** The property `key` of a JSON object, or undefined when `value` is not an object. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
