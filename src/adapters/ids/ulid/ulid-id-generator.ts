/**
 * ULIDs (Crockford base32: 48-bit time + 80 random bits) from `ulidx`'s monotonic factory, so ids
 * sort in creation order within a millisecond too; the time comes from the Clock port and the
 * randomness from a pooled CSPRNG (decision 0025).
 */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type PRNG } from 'ulidx';
import type { Clock } from '../../../ports/clock.js';
import type { IdGenerator, IdKind } from '../../../ports/id-generator.js';

/**
 * Random bytes from a pool filled 4 KiB at a time: one system call per ≈ 400 ids instead of one
 * per id (every request takes a request id). The bytes are the same CSPRNG's; each is handed out
 * once.
 */
export function pooledRandomBytes(poolSize = 4_096): ((bytes: number) => Uint8Array) & { byte(): number } {
  const pool = Buffer.alloc(poolSize);
  let at = poolSize;
  const take = (bytes: number) => {
    if (bytes > poolSize) return randomFillSync(Buffer.alloc(bytes));
    if (at + bytes > poolSize) {
      randomFillSync(pool);
      at = 0;
    }
    const out = Buffer.from(pool.subarray(at, at + bytes)); // a copy: the pool is refilled later
    at += bytes;
    return out;
  };
  /** One byte, without a copy (a ULID's random part takes 16, one at a time). */
  const byte = () => {
    if (at >= poolSize) {
      randomFillSync(pool);
      at = 0;
    }
    return pool[at++]!;
  };
  return Object.assign(take, { byte });
}

/** ulidx's PRNG shape (a number in [0, 1)) over pooled bytes: one byte per base32 character, 256 = 8 × 32, so uniform. */
function prngOf(random: ((bytes: number) => Uint8Array) & { byte?: () => number }): PRNG {
  const byte = random.byte;
  return byte ? () => byte() / 256 : () => random(1)[0]! / 256;
}

export class UlidIdGenerator implements IdGenerator {
  private readonly ulid: (seedTime?: number) => string;

  constructor(
    private readonly clock: Clock,
    private readonly random: ((bytes: number) => Uint8Array) & { byte?: () => number } = pooledRandomBytes(),
  ) {
    this.ulid = monotonicFactory(prngOf(random));
  }

  next(kind: IdKind): string {
    return `${kind}_${this.ulid(this.clock.now().getTime())}`;
  }

  nonce32(): string {
    return `0x${Buffer.from(this.random(32)).toString('hex')}`;
  }
}
