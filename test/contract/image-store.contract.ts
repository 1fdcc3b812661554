import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredImage } from '../../src/domain/image.js';
import { at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

function image(bytes: Uint8Array, createdAt = at(0)): StoredImage {
  return { sha256: createHash('sha256').update(bytes).digest('hex'), contentType: 'image/webp', bytes, width: 512, height: 384, createdAt };
}

export function imageStoreContract(name: string, make: UowFactory) {
  describe(`ImageStore contract: ${name}`, () => {
    it('gives back exactly the bytes stored under their hash (every byte value, a large image); unknown: null', () =>
      withUow(make, async (uow) => {
        const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 256);
        const stored = image(bytes);
        expect(await uow.run((s) => s.images.put(stored))).toBe(true);
        const back = await uow.run((s) => s.images.get(stored.sha256));
        expect(back).not.toBeNull();
        expect(Buffer.from(back!.bytes).equals(Buffer.from(bytes))).toBe(true);
        expect({ ...back!, bytes: null }).toEqual({ ...stored, bytes: null });
        expect(await uow.run((s) => s.images.get('0'.repeat(64)))).toBeNull();
      }));

    it('the same bytes are stored once, even when put concurrently; the first stays', () =>
      withUow(make, async (uow) => {
        const bytes = new Uint8Array([1, 2, 3, 4, 5]);
        const puts = await Promise.all(Array.from({ length: 8 }, (_, i) => uow.run((s) => s.images.put(image(bytes, at(i * 1_000))))));
        expect(puts.filter(Boolean)).toHaveLength(1);
        expect(await uow.run((s) => s.images.put(image(bytes, at(60_000))))).toBe(false);
        const kept = await uow.run((s) => s.images.get(image(bytes).sha256));
        expect(kept!.createdAt.getTime()).toBeLessThan(at(60_000).getTime());
      }));

    it('a put inside a transaction that fails is not kept', () =>
      withUow(make, async (uow) => {
        const stored = image(new Uint8Array([9, 9, 9]));
        await expect(
          uow.transaction(async (s) => {
            await s.images.put(stored);
            throw new Error('the operation failed');
          }),
        ).rejects.toThrow('the operation failed');
        expect(await uow.run((s) => s.images.get(stored.sha256))).toBeNull();
      }));
  });
}
