/**
 * What a payment is bound to: the entrypoint and its normalised input, hashed. Two requests are
 * "the same request" exactly when these hashes are equal (key order and bigint spelling do not
 * matter).
 */
import { createHash } from 'node:crypto';

/** sha256 over the entrypoint and its canonical input. */
export function hashRequest(entrypoint: string, input: unknown): string {
  return sha256(`${entrypoint}\n${canonicalJson(input)}`);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted at every depth and bigints as decimal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    return v;
  });
}
