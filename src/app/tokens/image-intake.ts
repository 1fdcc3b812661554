/**
 * Token images in (docs/api.md "Token images", decisions 0049 and 0064): an upload as base64 or a
 * `data:` URL becomes the two images the service keeps — checked by its bytes (size, signature,
 * the work its decoding would take), decoded once under a pixel limit, a time budget and a bound
 * on decodes at once, re-encoded without metadata — before any payment is asked for; then, with
 * the paid operation, stored by their sha256 and named by URLs on the service's own origin.
 */
import { createHash } from 'node:crypto';
import { isRefusal, ValidationError } from '../../domain/errors.js';
import {
  checkDecoded,
  checkUpload,
  IMAGE_DECODE_BUDGET_SECONDS,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_PIXELS,
  IMAGE_SIZE,
  STORED_IMAGE_EXTENSION,
  THUMBNAIL_SIZE,
  type PreparedImage,
  type StoredImage,
} from '../../domain/image.js';
import { ImageTooComplex, ImageTooLarge } from '../../domain/errors.js';
import type { TokenImageUrls } from '../../domain/token.js';
import type { EncodedImage, ImageProcessor } from '../../ports/image-processor.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { TokenImages } from '../kit/deps.js';
import type { AppMetrics } from '../kit/metrics.js';
import { DECODE_GATE_LIMITS, DecodeGate, type DecodeGateLimits } from './decode-gate.js';

export type { PreparedImage } from '../../domain/image.js';

/** The path an image is served at: `/images/<sha256>.webp`. */
export const imagePath = (sha256: string): string => `/images/${sha256}.${STORED_IMAGE_EXTENSION}`;

/**
 * The request body an operation that takes an image accepts: 1 MiB as base64 is 1,398,104
 * characters; the rest is room for the other fields. A proxy in front must allow as much
 * (docs/operations.md "Behind a proxy").
 */
export const IMAGE_BODY_LIMIT_BYTES = 1536 * 1024;

/** How many recent uploads are kept decoded: a paid call checks its input two or three times (the 402, the payment, the claim). */
const REMEMBERED = 16;

const DATA_URL = /^data:([^,;]*)((?:;[^,;]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class ImageIntake implements TokenImages {
  private readonly recent = new Map<string, Promise<PreparedImage>>();

  private readonly gate: DecodeGate;
  private readonly budgetSeconds: number;

  constructor(
    private readonly processor: ImageProcessor,
    /** The service's public origin (PUBLIC_URL, or where it listens): the images' URLs name it. */
    private readonly origin: () => string,
    private readonly metrics?: AppMetrics,
    /** Decodes at once and how long one may run (decision 0064); the defaults are the service's. */
    limits: { gate?: DecodeGateLimits; budgetSeconds?: number } = {},
  ) {
    this.gate = new DecodeGate(limits.gate ?? DECODE_GATE_LIMITS);
    this.budgetSeconds = limits.budgetSeconds ?? IMAGE_DECODE_BUDGET_SECONDS;
  }

  /** Checks and re-encodes an upload; every refusal has its code (IMAGE_*), counted once per request. */
  async prepare(upload: string): Promise<PreparedImage> {
    try {
      const bytes = decodeUpload(upload);
      const key = sha256(bytes);
      let prepared = this.recent.get(key);
      if (!prepared) {
        prepared = this.process(bytes);
        this.remember(key, prepared);
      }
      return await prepared;
    } catch (e) {
      if (isRefusal(e)) this.metrics?.increment('image_uploads_total', { result: 'refused', reason: e.code });
      throw e;
    }
  }

  /** Decodes running and waiting for a slot. */
  get decodes(): { running: number; waiting: number } {
    return this.gate.load;
  }

  /** Stores both images (each once, whoever stored it first) and answers the URLs that name them. */
  async store(stores: Stores, prepared: PreparedImage, now: Date): Promise<TokenImageUrls> {
    let stored = 0;
    for (const image of [prepared.image, prepared.thumbnail]) {
      if (await stores.images.put({ ...image, createdAt: now })) stored += image.bytes.length;
    }
    this.metrics?.increment('image_uploads_total', { result: 'accepted', reason: stored > 0 ? 'stored' : 'duplicate' });
    if (stored > 0) this.metrics?.increment('image_bytes_stored_total', {}, stored);
    return { imageUrl: this.urlOf(prepared.image.sha256), thumbnailUrl: this.urlOf(prepared.thumbnail.sha256) };
  }

  private urlOf(sha: string): string {
    return `${this.origin()}${imagePath(sha)}`;
  }

  /**
   * Size, signature and the work counted from the bytes (no decoder yet), the header, then one
   * decode — when the gate has a slot, answered within the budget whether or not the decoder can
   * be stopped (the slot stays taken until it has stopped).
   */
  private async process(bytes: Uint8Array): Promise<PreparedImage> {
    const format = checkUpload(bytes);
    checkDecoded(format, await this.processor.inspect(bytes));
    const { budgetSeconds } = this;
    const request = { maxPixels: IMAGE_MAX_PIXELS, size: IMAGE_SIZE, thumbnailSize: THUMBNAIL_SIZE, budgetSeconds };
    const { image, thumbnail } = await new Promise<{ image: EncodedImage; thumbnail: EncodedImage }>((resolve, reject) => {
      this.gate
        .run(async () => {
          const timer = setTimeout(() => reject(ImageTooComplex.overBudget(budgetSeconds)), budgetSeconds * 1000);
          try {
            resolve(await this.processor.render(bytes, request));
          } catch (e) {
            reject(e);
          } finally {
            clearTimeout(timer);
          }
        })
        .catch(reject);
    });
    return { image: named(image), thumbnail: named(thumbnail) };
  }

  /** Kept while recent; a refusal is not kept (it is cheap to find again, and its count is per request). */
  private remember(key: string, prepared: Promise<PreparedImage>): void {
    this.recent.set(key, prepared);
    prepared.catch(() => this.recent.delete(key));
    if (this.recent.size > REMEMBERED) this.recent.delete(this.recent.keys().next().value!);
  }
}

/**
 * The file of an `image` field: base64, or a `data:` URL whose declared type is ignored (the
 * bytes say what they are). Too long to be 1 MiB is refused before it is decoded.
 */
export function decodeUpload(upload: string): Uint8Array {
  const dataUrl = DATA_URL.exec(upload);
  const text = (dataUrl ? upload.slice(dataUrl[0].length) : upload).replace(/\s+/g, '');
  const declaredBytes = Math.floor((text.length * 3) / 4);
  if (declaredBytes > IMAGE_MAX_BYTES + 2) throw new ImageTooLarge(declaredBytes, IMAGE_MAX_BYTES);
  if (!BASE64.test(text) || text.length % 4 === 1) throw ValidationError.of('image', 'must be the file as base64, or a data: URL (data:image/png;base64,…)');
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function named(e: EncodedImage): Omit<StoredImage, 'createdAt'> {
  return { sha256: sha256(e.bytes), contentType: e.contentType, bytes: e.bytes, width: e.width, height: e.height };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
