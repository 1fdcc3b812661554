import type { IdGenerator, IdKind } from '../../../ports/id-generator.js';
import { crockford } from '../../shared/crockford.js';

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
