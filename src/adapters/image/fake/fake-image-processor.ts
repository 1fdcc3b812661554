/**
 * An ImageProcessor for tests: reads a PNG's or GIF's size from its header (others are 100 × 100)
 * and "encodes" by tagging the input bytes, so the same upload always gives the same renditions.
 * It decodes nothing: a header that lies is believed, a body that is garbage is not noticed —
 * those are the real adapter's tests.
 */
import { ImageTooManyPixels, ImageUnreadable } from '../../../domain/errors.js';
import { sniffImage } from '../../../domain/image.js';
import type { EncodedImage, ImageHeader, ImageProcessor, RenditionRequest } from '../../../ports/image-processor.js';

export class FakeImageProcessor implements ImageProcessor {
  /** Every render, for tests that count decodes. */
  renders = 0;

  async inspect(bytes: Uint8Array): Promise<ImageHeader> {
    const format = sniffImage(bytes);
    if (format === null || format === 'svg') throw new ImageUnreadable('unsupported image format');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (format === 'png' && bytes.length >= 24) return { format, width: view.getUint32(16), height: view.getUint32(20), pages: 1 };
    if (format === 'gif' && bytes.length >= 10) return { format, width: view.getUint16(6, true), height: view.getUint16(8, true), pages: 1 };
    return { format, width: 100, height: 100, pages: 1 };
  }

  async render(bytes: Uint8Array, request: RenditionRequest): Promise<{ image: EncodedImage; thumbnail: EncodedImage }> {
    this.renders++;
    const { width, height } = await this.inspect(bytes);
    if (width * height > request.maxPixels) throw new ImageTooManyPixels(request.maxPixels, { width, height });
    const scale = Math.min(1, request.size / Math.max(width, height));
    return {
      image: tagged('image', bytes, Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))),
      thumbnail: tagged('thumb', bytes, request.thumbnailSize, request.thumbnailSize),
    };
  }
}

function tagged(tag: string, bytes: Uint8Array, width: number, height: number): EncodedImage {
  const head = new TextEncoder().encode(`fake-${tag}:`);
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return { bytes: out, contentType: 'image/webp', width, height };
}
