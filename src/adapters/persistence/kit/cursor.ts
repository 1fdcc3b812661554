/** Opaque keyset cursors: base64url JSON of the last row's sort key. Shared by every store adapter. */
import { ValidationError } from '../../../domain/errors.js';

export function encodeCursor(key: Record<string, string>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * What a value of a cursor this service issues looks like: an id (`trd_…`), a zero-padded number or
 * an ISO time. Anything else (U+0000, a control character, a quote) never reaches a query.
 */
const CURSOR_VALUE = /^[A-Za-z0-9_:.-]{1,100}$/;

export function decodeCursor<K extends string>(cursor: string, fields: readonly K[]): Record<K, string> {
  const invalid = () => ValidationError.of('cursor', 'is not a cursor this endpoint issued');
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid();
  const out = {} as Record<K, string>;
  for (const f of fields) {
    const v = (parsed as Record<string, unknown>)[f];
    if (typeof v !== 'string' || !CURSOR_VALUE.test(v)) throw invalid();
    out[f] = v;
  }
  return out;
}
