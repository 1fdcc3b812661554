/** The page's stylesheet: imported for its side effect, bundled by esbuild (scripts/build-web.ts); TypeScript 6 checks side-effect imports. */
declare module '*.css';
