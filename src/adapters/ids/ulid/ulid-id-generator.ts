/**
 * ULIDs (Crockford base32: 48-bit time + 80 random bits), monotonic within a millisecond so
 * ids sort in creation order.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../ports/clock.js';
import type { IdGenerator, IdKind } from '../../../ports/id-generator.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export class UlidIdGenerator implements IdGenerator {
  private lastTime = -1;
  private lastRandom = 0n;

  constructor(
    private readonly clock: Clock,
    private readonly random: (bytes: number) => Uint8Array = randomBytes,
  ) {}

  next(kind: IdKind): string {
    const time = this.clock.now().getTime();
    if (time <= this.lastTime) {
      this.lastRandom = (this.lastRandom + 1n) & ((1n << 80n) - 1n);
    } else {
      this.lastTime = time;
      this.lastRandom = BigInt('0x' + Buffer.from(this.random(10)).toString('hex'));
    }
    return `${kind}_${encode(BigInt(this.lastTime), 10)}${encode(this.lastRandom, 16)}`;
  }
}

/** Deterministic ids for tests: `<kind>_` + a counter in ULID shape. */
export class SequentialIdGenerator implements IdGenerator {
  private counter = 0n;
  next(kind: IdKind): string {
    this.counter += 1n;
    return `${kind}_${encode(this.counter, 26)}`;
  }
}
