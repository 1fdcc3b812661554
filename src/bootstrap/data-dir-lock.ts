/**
 * One instance per data directory (docs/decisions/0022-one-instance-per-data-dir.md). Two
 * services on one DATA_DIR would run two chains on one devnet state and each take the other's
 * anvil for an orphan, so the composition root takes this lock before anything touches the
 * directory, and holds it until a graceful stop.
 *
 * The lock is the kernel's, not a file's existence: a write transaction SQLite keeps open on
 * `DATA_DIR/service.lock`, i.e. a POSIX record lock on that file. Only one process can hold it
 * (taking it is one atomic call, so two starts cannot both win), and the kernel drops it when its
 * holder dies however it dies — after a kill -9 the file stays behind and the next start simply
 * takes the lock again, with no pid to trust and none reused. The file itself is never deleted:
 * a start that opened it just before the delete would lock a file nobody else can see.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export const LOCK_FILE = 'service.lock';

/** Another live process holds the data directory's lock. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    /** The holder, when the platform tells (Linux: /proc/locks). */
    readonly holderPid: number | null,
  ) {
    super(`${dataDir} is in use by ${holderPid ? `pid ${holderPid}` : 'another process'}`);
    this.name = 'DataDirInUse';
  }
}

/** better-sqlite3's Database (it ships no types; the little used here is typed where it is used). */
type Connection = { exec(sql: string): unknown; close(): unknown };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string, options: { timeout: number }) => Connection;

export class DataDirLock {
  private constructor(
    readonly dataDir: string,
    private db: Connection | null,
  ) {}

  /** Takes the lock of `dataDir` (created if missing) at once, or throws DataDirInUse. */
  static async acquire(dataDir: string): Promise<DataDirLock> {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, LOCK_FILE);
    // busy_timeout 0: a held lock answers at once (the driver is synchronous).
    const db = new Database(path, { timeout: 0 });
    try {
      // RESERVED: one holder at a time across processes (and connections of one process).
      db.exec('begin immediate');
    } catch (e) {
      db.close();
      if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUse(dataDir, lockHolder(path));
      throw e;
    }
    return new DataDirLock(dataDir, db);
  }

  /** Lets the next instance start on this directory (the file stays). */
  async release(): Promise<void> {
    const db = this.db;
    this.db = null;
    if (!db) return;
    try {
      db.exec('rollback');
    } catch {
      // nothing was held
    }
    db.close();
  }
}

/** Who holds the write lock on `path`, from /proc/locks (Linux); null where that cannot be told. */
function lockHolder(path: string): number | null {
  try {
    const inode = statSync(path).ino;
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "1: POSIX  ADVISORY  WRITE 4242 fe:00:2146647 1073741825 1073741825"
      const m = /^\d+:\s+\S+\s+\S+\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
      if (m && Number(m[2]) === inode) return Number(m[1]);
    }
  } catch {
    // not Linux: the message goes without a pid
  }
  return null;
}
