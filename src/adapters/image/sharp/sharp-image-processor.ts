/**
 * The ImageProcessor on sharp (libvips): a maintained decoder made for untrusted uploads. Every
 * decode is bounded by `limitInputPixels` and sharp's timeout (libvips stops at its next tile; a
 * progressive JPEG's scans are read before the first, which is why they are counted first:
 * src/domain/image-structure.ts), reads only the first frame, and fails on a decoder warning (a
 * truncated or corrupt file) rather than keeping half a picture.
 */
import sharp, { type Sharp } from 'sharp';
import { ImageTooComplex, ImageTooManyPixels, ImageUnreadable } from '../../../domain/errors.js';
import { IMAGE_DECODE_BUDGET_SECONDS } from '../../../domain/image.js';
import type { EncodedImage, ImageHeader, ImageProcessor, RenditionRequest } from '../../../ports/image-processor.js';

const WEBP_QUALITY = 85;

export class SharpImageProcessor implements ImageProcessor {
  async inspect(bytes: Uint8Array): Promise<ImageHeader> {
    try {
      // The header only: no pixel is decoded here, so a bomb's declared size is read, not paid for.
      const m = await sharp(bytes, { limitInputPixels: false, failOn: 'warning' }).metadata();
      if (!m.width || !m.height) throw new Error('no dimensions');
      return { format: m.format, width: m.width, height: m.height, pages: m.pages ?? 1 };
    } catch (e) {
      throw new ImageUnreadable(reasonOf(e));
    }
  }

  /**
   * One decode for both renditions: the first frame, upright, shrunk once (on load where the
   * format allows: a JPEG's DCT scaling) to the smallest size both can be cut from without
   * enlarging — its long side 512, or its short side 128 for a strip — into raw pixels; the image
   * is fitted from those, the thumbnail is their largest centred square scaled to 128. No cover
   * resize: a 4096 × 16 strip is never enlarged to 32768 × 128 to be cropped.
   */
  async render(bytes: Uint8Array, request: RenditionRequest): Promise<{ image: EncodedImage; thumbnail: EncodedImage }> {
    const { width, height } = await this.inspect(bytes);
    const [long, short] = [Math.max(width, height), Math.min(width, height)];
    const budgetSeconds = request.budgetSeconds ?? IMAGE_DECODE_BUDGET_SECONDS;
    const scale = Math.min(1, Math.max(request.size / long, request.thumbnailSize / short));
    try {
      let decode = sharp(bytes, { limitInputPixels: request.maxPixels, failOn: 'warning', pages: 1 }).autoOrient();
      // A square box and `inside`: the long side is `box` whichever way the EXIF orientation turns the picture.
      if (scale < 1) decode = decode.resize(Math.ceil(long * scale - 1e-9), Math.ceil(long * scale - 1e-9), { fit: 'inside' });
      const { data, info } = await decode
        .raw({ depth: 'uchar' })
        .timeout({ seconds: Math.max(1, Math.ceil(budgetSeconds)) })
        .toBuffer({ resolveWithObject: true });
      const pixels = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
      const side = Math.min(info.width, info.height);
      const square = { left: Math.floor((info.width - side) / 2), top: Math.floor((info.height - side) / 2), width: side, height: side };
      const [image, thumbnail] = await Promise.all([
        encode(pixels().resize(request.size, request.size, { fit: 'inside', withoutEnlargement: true })),
        encode(pixels().extract(square).resize(request.thumbnailSize, request.thumbnailSize)),
      ]);
      return { image, thumbnail };
    } catch (e) {
      if (/pixel limit/i.test(reasonOf(e))) throw new ImageTooManyPixels(request.maxPixels);
      if (/^timeout/i.test(reasonOf(e))) throw ImageTooComplex.overBudget(budgetSeconds);
      throw new ImageUnreadable(reasonOf(e));
    }
  }
}

/** WebP without metadata (sharp keeps none unless asked), at a quality that keeps logos' edges. */
async function encode(pipeline: Sharp): Promise<EncodedImage> {
  const { data, info } = await pipeline.webp({ quality: WEBP_QUALITY, effort: 4 }).toBuffer({ resolveWithObject: true });
  return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), contentType: 'image/webp', width: info.width, height: info.height };
}

/** libvips' message, first line, without the path of a temporary file: enough to tell a user what was wrong. */
function reasonOf(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0]!.replace(/^Input (buffer|image) /i, '').slice(0, 200) || 'unknown decoder error';
}
