/**
 * Token images (docs/api.md "Token images", decision 0049): what an upload may be, told from its
 * bytes alone, and the shapes the service keeps. Decoding is a port's (ImageProcessor); the rules
 * are here.
 */
import { ImageSvgRefused, ImageTooLarge, ImageTooManyPixels, ImageTypeUnsupported, ImageUnreadable } from './errors.js';
import { checkImageWork, type ImageFormat } from './image-structure.js';

/** The formats taken, by what their first bytes say; anything else is refused. */
export type { ImageFormat };

/** The largest upload, in bytes of the file itself (not its base64): 1 MiB. */
export const IMAGE_MAX_BYTES = 1024 * 1024;
/**
 * The most pixels a frame may declare: 4096 × 4096. A phone photo (12 MP) fits; a file of a few
 * hundred bytes declaring 20000 × 20000 (a decompression bomb: 1.6 GB decoded) does not.
 */
export const IMAGE_MAX_PIXELS = 4096 * 4096;
/** Each side at most this: a 1,048,576 × 16 strip has no more pixels than 4096², but is no picture and costs seconds to crop. */
export const IMAGE_MAX_SIDE = 4096;
/**
 * The longest one decode may run, in seconds (decision 0064): an ordinary 4096 × 4096 image takes
 * about 0.1 s; what runs past the budget is refused IMAGE_TOO_COMPLEX.
 */
export const IMAGE_DECODE_BUDGET_SECONDS = 3;
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

/**
 * An SVG is text: it starts with `<` — after a byte-order mark, white space, an XML prolog,
 * comments or a doctype, however long — and holds an `<svg` element. The whole upload is read
 * (at most 1 MiB, one pass), as UTF-8 or, told by its byte-order mark or its first `<`, UTF-16.
 */
function looksLikeSvg(bytes: Uint8Array): boolean {
  const text = new TextDecoder(textEncodingOf(bytes), { fatal: false }).decode(bytes).replace(/^\uFEFF/, '').trimStart();
  return text.startsWith('<') && /<(?:[\w.-]+:)?svg[\s>/]/i.test(text);
}

function textEncodingOf(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' {
  if (startsWith(bytes, [0xff, 0xfe])) return 'utf-16le';
  if (startsWith(bytes, [0xfe, 0xff])) return 'utf-16be';
  // Without a mark, XML's own rule: a first `<` of two bytes says which end comes first.
  if (startsWith(bytes, [0x3c, 0x00]) && bytes[3] === 0x00) return 'utf-16le';
  if (startsWith(bytes, [0x00, 0x3c]) && bytes[2] === 0x00) return 'utf-16be';
  return 'utf-8';
}

/**
 * The refusals of an upload before it is decoded: too large, an SVG, not one of the formats, or
 * more work to decode than an ordinary image (image-structure.ts). Returns the format the bytes claim.
 */
export function checkUpload(bytes: Uint8Array): ImageFormat {
  if (bytes.length > IMAGE_MAX_BYTES) throw new ImageTooLarge(bytes.length, IMAGE_MAX_BYTES);
  if (bytes.length === 0) throw new ImageTypeUnsupported();
  const format = sniffImage(bytes);
  if (format === 'svg') throw new ImageSvgRefused();
  if (format === null) throw new ImageTypeUnsupported();
  checkImageWork(format, bytes);
  return format;
}

/**
 * What the decoder read from the header: it must agree with the bytes' own signature, and stay
 * under the size limit — each side at most 4096, and at most 4096 × 4096 pixels in all.
 */
export function checkDecoded(claimed: ImageFormat, found: { format: string; width: number; height: number }): void {
  if (found.format !== claimed) throw new ImageUnreadable(`the bytes start like ${claimed.toUpperCase()} but decode as ${found.format || 'nothing known'}`);
  if (found.width > IMAGE_MAX_SIDE || found.height > IMAGE_MAX_SIDE || found.width * found.height > IMAGE_MAX_PIXELS) {
    throw new ImageTooManyPixels(IMAGE_MAX_PIXELS, { width: found.width, height: found.height }, IMAGE_MAX_SIDE);
  }
}

/** An upload checked and re-encoded, not stored yet: what a paid operation stores if it is paid for. */
export interface PreparedImage {
  image: Omit<StoredImage, 'createdAt'>;
  thumbnail: Omit<StoredImage, 'createdAt'>;
}
