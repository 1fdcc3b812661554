/**
 * Token images out (docs/api.md "Token images"): read by their sha256, and kept in this process
 * while recent. An image never changes under its name (content-addressed), so a kept copy is
 * never stale; the cache is bounded by bytes, oldest read dropped first.
 */
import type { StoredImage } from '../../domain/image.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** 32 MiB: a few thousand thumbnails, or a few hundred full images. */
const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

export class ImageReads {
  private readonly kept = new Map<string, StoredImage>();
  private keptBytes = 0;

  constructor(
    private readonly uow: Pick<UnitOfWork, 'run'>,
    private readonly maxBytes = DEFAULT_CACHE_BYTES,
  ) {}

  /** The image named `sha256` (lower-case hex), or null. */
  async get(sha256: string): Promise<StoredImage | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    const kept = this.kept.get(sha256);
    if (kept) {
      // Read again: the newest in the map's order.
      this.kept.delete(sha256);
      this.kept.set(sha256, kept);
      return kept;
    }
    const image = await this.uow.run((s) => s.images.get(sha256));
    if (image) this.keep(image);
    return image;
  }

  private keep(image: StoredImage): void {
    if (image.bytes.length > this.maxBytes) return;
    this.kept.set(image.sha256, image);
    this.keptBytes += image.bytes.length;
    for (const [sha, old] of this.kept) {
      if (this.keptBytes <= this.maxBytes) break;
      this.kept.delete(sha);
      this.keptBytes -= old.bytes.length;
    }
  }
}
