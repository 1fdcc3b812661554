/**
 * Token images (docs/api.md "Token images", decision 0049): what an upload may be, told from its
 * bytes alone, and the shapes the service keeps. Decoding is a port's (ImageProcessor); the rules
 * are here.
 */
import { ImageSvgRefused, ImageTooLarge, ImageTooManyPixels, ImageTypeUnsupported, ImageUnreadable } from './errors.js';

/** The formats taken, by what their first bytes say; anything else is refused. */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/** The largest upload, in bytes of the file itself (not its base64): 1 MiB. */
export const IMAGE_MAX_BYTES = 1024 * 1024;
/**
 * The most pixels a frame may declare: 4096 × 4096. A phone photo (12 MP) fits; a file of a few
 * hundred bytes declaring 20000 × 20000 (a decompression bomb: 1.6 GB decoded) does not.
 */
export const IMAGE_MAX_PIXELS = 4096 * 4096;
/** The image kept: at most this wide and high, aspect kept, never enlarged. */
export const IMAGE_SIZE = 512;
/** The thumbnail kept: this square, cropped to the centre (the feed's cards). */
export const THUMBNAIL_SIZE = 128;
/** What both are stored as: WebP keeps transparency and is a fraction of PNG's size (decision 0049). */
export const STORED_IMAGE_TYPE = 'image/webp';
export const STORED_IMAGE_EXTENSION = 'webp';

/** One re-encoded image as the service stores and serves it, named by the sha256 of its bytes. */
export interface StoredImage {
  /** Lower-case hex sha256 of `bytes`: its name and its ETag. */
  readonly sha256: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly createdAt: Date;
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/** What the bytes say they are: one of the formats taken, an SVG, or nothing known. */
export function sniffImage(bytes: Uint8Array): ImageFormat | 'svg' | null {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, JPEG)) return 'jpeg';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'webp';
  if (looksLikeSvg(bytes)) return 'svg';
  return null;
}

/** An SVG is text: an `<svg` element in its first kilobyte, after an XML prolog, comments or a doctype. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 1024)).replace(/^\uFEFF/, '').trimStart();
  return head.startsWith('<') && /<svg[\s>/]/i.test(head);
}

/**
 * The refusals of an upload before it is decoded: too large, an SVG, or not one of the formats.
 * Returns the format the bytes claim.
 */
export function checkUpload(bytes: Uint8Array): ImageFormat {
  if (bytes.length > IMAGE_MAX_BYTES) throw new ImageTooLarge(bytes.length, IMAGE_MAX_BYTES);
  if (bytes.length === 0) throw new ImageTypeUnsupported();
  const format = sniffImage(bytes);
  if (format === 'svg') throw new ImageSvgRefused();
  if (format === null) throw new ImageTypeUnsupported();
  return format;
}

/** What the decoder read from the header: it must agree with the bytes' own signature, and stay under the pixel limit. */
export function checkDecoded(claimed: ImageFormat, found: { format: string; width: number; height: number }): void {
  if (found.format !== claimed) throw new ImageUnreadable(`the bytes start like ${claimed.toUpperCase()} but decode as ${found.format || 'nothing known'}`);
  if (found.width * found.height > IMAGE_MAX_PIXELS) throw new ImageTooManyPixels(IMAGE_MAX_PIXELS, { width: found.width, height: found.height });
}
