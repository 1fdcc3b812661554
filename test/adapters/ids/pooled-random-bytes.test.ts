/** The ULID generator's pooled randomness: every byte handed out once, copies that later refills never change. */
import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../../src/adapters/ids/ulid/ulid-id-generator.js';

describe('pooledRandomBytes', () => {
  it('hands out slices of the requested length, across refills, never the same slice twice', () => {
    const random = pooledRandomBytes(64);
    const seen = new Set<string>();
    const first = random(10);
    const kept = Buffer.from(first).toString('hex');
    for (let i = 0; i < 100; i++) {
      const b = random(10);
      expect(b).toHaveLength(10);
      const hex = Buffer.from(b).toString('hex');
      expect(seen.has(hex)).toBe(false);
      seen.add(hex);
    }
    expect(Buffer.from(first).toString('hex')).toBe(kept); // refills did not touch what was handed out
    expect(random(100)).toHaveLength(100); // larger than the pool: filled directly
  });
});
