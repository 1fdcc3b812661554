import type { StoredImage } from '../domain/image.js';

/**
 * Token images, content-addressed (docs/api.md "Token images"): in the database, so every process
 * of a scale-out serves what any of them took.
 */
export interface ImageStore {
  /**
   * Stores the image under its sha256 unless one is there already (the same bytes are the same
   * image): answers whether this call stored it. Concurrent puts of one image store it once.
   */
  put(image: StoredImage): Promise<boolean>;
  /** The image named `sha256`, or null. */
  get(sha256: string): Promise<StoredImage | null>;
}
