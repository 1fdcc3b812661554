/** A process that takes a data directory's lock and holds it until killed (data-dir-lock tests). */
import { DataDirLock } from '../../src/bootstrap/data-dir-lock.js';

await DataDirLock.acquire(process.argv[2]!);
console.log('held');
setInterval(() => undefined, 60_000);
