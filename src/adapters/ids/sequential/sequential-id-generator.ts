import type { IdGenerator, IdKind } from '../../../ports/id-generator.js';

/** Crockford base32, the alphabet of ULIDs: `length` characters of `value`, most significant first. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function crockford(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** Deterministic ids for tests: `<kind>_` + a counter in ULID shape. */
export class SequentialIdGenerator implements IdGenerator {
  private counter = 0n;
  next(kind: IdKind): string {
    this.counter += 1n;
    return `${kind}_${crockford(this.counter, 26)}`;
  }
  nonce32(): string {
    this.counter += 1n;
    return `0x${this.counter.toString(16).padStart(64, '0')}`;
  }
}
