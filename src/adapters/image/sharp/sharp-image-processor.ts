/**
 * The ImageProcessor on sharp (libvips): a maintained decoder made for untrusted uploads. Every
 * decode is bounded by `limitInputPixels`, reads only the first frame, and fails on a decoder
 * warning (a truncated or corrupt file) rather than keeping half a picture.
 */
import sharp, { type Sharp } from 'sharp';
import { ImageTooManyPixels, ImageUnreadable } from '../../../domain/errors.js';
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

  async render(bytes: Uint8Array, request: RenditionRequest): Promise<{ image: EncodedImage; thumbnail: EncodedImage }> {
    const input = () => sharp(bytes, { limitInputPixels: request.maxPixels, failOn: 'warning', pages: 1 }).autoOrient();
    try {
      const [image, thumbnail] = await Promise.all([
        encode(input().resize(request.size, request.size, { fit: 'inside', withoutEnlargement: true })),
        encode(input().resize(request.thumbnailSize, request.thumbnailSize, { fit: 'cover', position: 'centre' })),
      ]);
      return { image, thumbnail };
    } catch (e) {
      if (/pixel limit/i.test(reasonOf(e))) throw new ImageTooManyPixels(request.maxPixels);
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
