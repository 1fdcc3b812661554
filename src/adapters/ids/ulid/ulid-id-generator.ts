/**
 * ULIDs (Crockford base32: 48-bit time + 80 random bits), monotonic within a millisecond so
 * ids sort in creation order.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../ports/clock.js';
import type { IdGenerator, IdKind } from '../../../ports/id-generator.js';
import { crockford } from '../../shared/crockford.js';


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
    return `${kind}_${crockford(BigInt(this.lastTime), 10)}${crockford(this.lastRandom, 16)}`;
  }

  nonce32(): string {
    return `0x${Buffer.from(this.random(32)).toString('hex')}`;
  }
}
