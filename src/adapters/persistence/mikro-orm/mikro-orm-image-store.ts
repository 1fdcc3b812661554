import type { StoredImage } from '../../../domain/image.js';
import type { ImageStore } from '../../../ports/image-store.js';
import { ms, type Sql } from './sql.js';
import { Table } from './table.js';

const IMAGES = new Table<StoredImage>(
  'images',
  {
    sha256: (i) => i.sha256,
    content_type: (i) => i.contentType,
    // A Buffer binds as a BLOB (SQLite) or bytea (PostgreSQL), and comes back as one.
    bytes: (i) => Buffer.from(i.bytes.buffer, i.bytes.byteOffset, i.bytes.byteLength),
    width: (i) => i.width,
    height: (i) => i.height,
    created_at: (i) => i.createdAt.getTime(),
  },
  (r) => {
    const bytes = r.bytes as Buffer;
    return {
      sha256: String(r.sha256),
      contentType: String(r.content_type),
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      width: Number(r.width),
      height: Number(r.height),
      createdAt: ms(r.created_at),
    };
  },
);

export class MikroOrmImageStore implements ImageStore {
  constructor(private readonly sql: Sql) {}

  async put(image: StoredImage): Promise<boolean> {
    // The primary key is the content's hash: a second put of the same bytes stores nothing.
    const rows = await this.sql.all(`${IMAGES.insert} on conflict (sha256) do nothing returning sha256`, IMAGES.values(image));
    return rows.length === 1;
  }

  async get(sha256: string): Promise<StoredImage | null> {
    const r = await this.sql.one(`select ${IMAGES.select(this.sql)} from images where sha256 = ?`, [sha256]);
    return r ? IMAGES.fromRow(r) : null;
  }
}
