/**
 * Where each free read answers, by its operation name: the paths of the catalogue's entries, which
 * the page's build writes in as a constant (esbuild's `define`, adapters/web/esbuild/page-files.ts;
 * a test sets it on globalThis). No table of paths is kept by hand.
 */
declare const READ_PATHS: Record<string, string>;
