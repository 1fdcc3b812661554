import type { StoredImage } from '../../../domain/image.js';
import type { ImageStore } from '../../../ports/image-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryImageStore implements ImageStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async put(image: StoredImage): Promise<boolean> {
    if (this.db.images.has(image.sha256)) return false;
    this.db.set(this.tx, this.db.images, image.sha256, { ...image, bytes: Uint8Array.from(image.bytes) });
    return true;
  }

  async get(sha256: string): Promise<StoredImage | null> {
    return this.db.images.get(sha256) ?? null;
  }
}
