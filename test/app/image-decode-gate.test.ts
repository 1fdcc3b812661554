/**
 * Decodes bounded in time and in number (issue 51, decision 0064), over a processor whose decodes
 * the test holds: one past its budget is answered IMAGE_TOO_COMPLEX then, while its slot stays
 * taken until the decoder stops; uploads beyond the slots wait in turn, a bounded time and a
 * bounded number of them, and are answered 503 SERVICE_UNAVAILABLE with a Retry-After — never
 * held for as long as someone else's decode runs.
 */
import { describe, expect, it } from 'vitest';
import { FakeImageProcessor } from '../../src/adapters/image/fake/fake-image-processor.js';
import { ImageIntake } from '../../src/app/tokens/image-intake.js';
import type { EncodedImage, RenditionRequest } from '../../src/ports/image-processor.js';
import { pngFixture } from '../support/images.js';

/** Renders when the test lets it: each render waits for `release()` while `hold` is set. */
class HeldProcessor extends FakeImageProcessor {
  hold = true;
  private readonly waiting: Array<() => void> = [];
  override async render(bytes: Uint8Array, request: RenditionRequest): Promise<{ image: EncodedImage; thumbnail: EncodedImage }> {
    if (this.hold) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return super.render(bytes, request);
  }
  release(): void {
    for (const go of this.waiting.splice(0)) go();
  }
}

/** Distinct uploads (the intake keeps a decode by the upload's sha256). */
const upload = async (n: number) => (await pngFixture(8 + n, 8)).toString('base64');

async function until(condition: () => boolean, deadlineMs = 5_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met before the deadline');
    await new Promise((r) => setImmediate(r));
  }
}

describe('image decodes: a budget and a gate', () => {
  it('a decode past its budget is answered IMAGE_TOO_COMPLEX; its slot is taken until the decoder stops', async () => {
    const processor = new HeldProcessor();
    const intake = new ImageIntake(processor, () => 'https://x', undefined, { gate: { slots: 1, maxQueued: 4, maxWaitMs: 60_000 }, budgetSeconds: 0.05 });
    await expect(intake.prepare(await upload(1))).rejects.toMatchObject({ code: 'IMAGE_TOO_COMPLEX', details: { what: 'decode_seconds', max: 0.05 } });
    expect(intake.decodes).toEqual({ running: 1, waiting: 0 });

    processor.hold = false;
    const next = intake.prepare(await upload(2));
    await until(() => intake.decodes.waiting === 1);
    processor.release(); // the stuck decoder stops: the slot passes to the next in line
    await expect(next).resolves.toMatchObject({ thumbnail: { width: 128, height: 128 } });
    expect(intake.decodes).toEqual({ running: 0, waiting: 0 });
  });

  it('uploads beyond the slots wait a bounded time, a bounded number of them, then are answered 503 with a Retry-After', async () => {
    const processor = new HeldProcessor();
    const intake = new ImageIntake(processor, () => 'https://x', undefined, { gate: { slots: 2, maxQueued: 1, maxWaitMs: 200 }, budgetSeconds: 60 });
    const running = [intake.prepare(await upload(1)), intake.prepare(await upload(2))];
    await until(() => intake.decodes.running === 2);

    const waiting = intake.prepare(await upload(3));
    await until(() => intake.decodes.waiting === 1);
    // The line is full: the next is answered at once, the one in line after its bounded wait.
    await expect(intake.prepare(await upload(4))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 2, details: { reason: 'image_decoders_busy' } });
    expect(intake.decodes.waiting).toBe(1);
    await expect(waiting).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'image_decoders_busy' } });
    expect(intake.decodes).toEqual({ running: 2, waiting: 0 });

    processor.release();
    await Promise.all(running);
    processor.hold = false;
    await expect(intake.prepare(await upload(3))).resolves.toBeDefined();
    expect(intake.decodes).toEqual({ running: 0, waiting: 0 });
  });

  it('uploads in line start in the order they came', async () => {
    const processor = new HeldProcessor();
    const intake = new ImageIntake(processor, () => 'https://x', undefined, { gate: { slots: 1, maxQueued: 8, maxWaitMs: 60_000 }, budgetSeconds: 60 });
    const uploads = await Promise.all([1, 2, 3, 4].map(upload));
    const done: number[] = [];
    const all = uploads.map(async (bytes, i) => {
      await intake.prepare(bytes);
      done.push(i + 1);
    });
    await until(() => intake.decodes.waiting === 3);
    while (done.length < 4) {
      processor.release();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    expect(done).toEqual([1, 2, 3, 4]);
  });
});
