/**
 * npm run build:web — bundles the page (src/adapters/web/browser) into dist/web for a service
 * that runs compiled (docs/decisions/0030). `npm start` needs none of this: from source, the
 * service builds the page in memory on its first visit.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildPage, PAGE_DIST_DIR, writePageFiles } from '../src/adapters/web/esbuild/page-files.js';
import { commandLine, usageError } from './command-line.js';

const USAGE = `usage: npm run build:web [-- <dir>]   (${PAGE_DIST_DIR} by default)`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
if (positionals.length > 1) usageError(USAGE, `one directory at most, not ${positionals.length}`);
const started = Date.now();
const dir = resolve(positionals[0] ?? PAGE_DIST_DIR);
const files = await buildPage();
await rm(dir, { recursive: true, force: true });
await writePageFiles(files, dir);
const bytes = [...files.values()].reduce((n, f) => n + f.body.length, 0);
console.log(`page: ${files.size} files, ${(bytes / 1024).toFixed(0)} KiB, written to ${dir} in ${Date.now() - started} ms`);
