/**
 * The page for people (src/adapters/web/browser), bundled by esbuild: in this process, into
 * memory, from the TypeScript source when the service runs from source (npm start), or read from
 * the directory `npm run build:web` wrote when it runs compiled (docs/decisions/0030).
 *
 * Files are keyed by the URL path they are served at: `/` is the HTML, everything else lives under
 * `/assets/` with a content hash in its name, so it can be cached for ever.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';
import { reads } from '../../../app/catalogue.js';

export interface PageFile {
  type: string;
  body: Buffer;
  /** Named by its content hash: cacheable for ever. */
  immutable: boolean;
}

export type PageFiles = ReadonlyMap<string, PageFile>;

/** The browser source: main.ts, index.html, styles.css. */
export const PAGE_SOURCE_DIR = fileURLToPath(new URL('../browser/', import.meta.url));

/** Where `npm run build:web` writes the page, relative to the working directory (the repository). */
export const PAGE_DIST_DIR = join('dist', 'web');

const ASSETS = '/assets/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

const typeOf = (path: string) => TYPES[extname(path)] ?? 'application/octet-stream';

let building = 0;

/** Each free read's path, by its operation name (the page's READ_PATHS). */
export function readPaths(): Record<string, string> {
  return Object.fromEntries(reads().map((r) => [r.operation, r.http.path]));
}

/** Bundles the page: minified ES modules split so the wallet and the chart load only when a view needs them. */
export async function buildPage(): Promise<PageFiles> {
  // Loaded here, not at the top: a process that never serves the page never loads esbuild.
  const esbuild = await import('esbuild');
  building += 1;
  try {
    return await bundle(esbuild);
  } finally {
    // esbuild keeps a helper process for later builds; a service builds once, so let it go.
    if (--building === 0) await esbuild.stop();
  }
}

async function bundle(esbuild: typeof Esbuild): Promise<PageFiles> {
  const outdir = join(PAGE_SOURCE_DIR, '.out');
  const result = await esbuild.build({
    entryPoints: { app: join(PAGE_SOURCE_DIR, 'main.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    outdir,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // The free reads' paths, from their catalogue entries: the page requests each read where it is routed.
    define: { 'process.env.NODE_ENV': '"production"', READ_PATHS: JSON.stringify(readPaths()) },
  });
  const files = new Map<string, PageFile>();
  let script: string | undefined;
  let style: string | undefined;
  for (const out of result.outputFiles) {
    const path = ASSETS + relative(outdir, out.path).split(sep).join('/');
    files.set(path, { type: typeOf(path), body: Buffer.from(out.contents), immutable: true });
  }
  const entry = join(PAGE_SOURCE_DIR, 'main.ts');
  for (const [path, meta] of Object.entries(result.metafile.outputs)) {
    // Every dynamic import is an entry point of its own too: the page's is main.ts.
    if (!meta.entryPoint || resolve(meta.entryPoint) !== entry) continue;
    script = ASSETS + relative(outdir, resolve(path)).split(sep).join('/');
    if (meta.cssBundle) style = ASSETS + relative(outdir, resolve(meta.cssBundle)).split(sep).join('/');
  }
  if (!script || !style) throw new Error('the page bundle has no entry script or style sheet');
  const template = await readFile(join(PAGE_SOURCE_DIR, 'index.html'), 'utf8');
  const html = template.replace('%APP_JS%', script).replace('%APP_CSS%', style);
  files.set('/', { type: TYPES['.html']!, body: Buffer.from(html), immutable: false });
  return files;
}

/** Writes the bundle into `dir` (`/` as index.html), for a service that runs compiled. */
export async function writePageFiles(files: PageFiles, dir: string): Promise<void> {
  for (const [path, file] of files) {
    const target = join(dir, path === '/' ? 'index.html' : path.slice(1));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.body);
  }
}

/** Reads what writePageFiles wrote. */
export async function readPageFiles(dir: string): Promise<PageFiles> {
  const files = new Map<string, PageFile>();
  files.set('/', { type: TYPES['.html']!, body: await readFile(join(dir, 'index.html')), immutable: false });
  for (const name of await readdir(join(dir, 'assets'))) {
    const path = ASSETS + name;
    files.set(path, { type: typeOf(path), body: await readFile(join(dir, 'assets', name)), immutable: true });
  }
  return files;
}

/**
 * The page this process serves: built from source when it runs from source (always fresh), read
 * from PAGE_DIST_DIR when it runs compiled (no TypeScript source beside it, no build at start).
 */
export async function loadPageFiles(): Promise<PageFiles> {
  const compiled = import.meta.url.endsWith('.js');
  if (!compiled) return buildPage();
  const dir = resolve(PAGE_DIST_DIR);
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`the page is not built: run npm run build:web (expected ${dir}/index.html)`);
  return readPageFiles(dir);
}
