/**
 * Serves the page at `/` and its assets under `/assets/` (GET and HEAD; every other path goes on
 * to the API). The files are loaded once — at start when the service warms the page, else on
 * the first request — and each is compressed once, when first asked for (brotli or gzip); the HTML
 * is revalidated on every visit (ETag), the hashed assets are cached for a year.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context, Next } from 'koa';
import { ServiceUnavailable } from '../../../domain/errors.js';
import type { Logger } from '../../../ports/logger.js';
import type { PageFiles } from './page-files.js';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

interface Served {
  type: string;
  immutable: boolean;
  etag: string;
  identity: Buffer;
  encoded: Partial<Record<'br' | 'gzip', Promise<Buffer>>>;
}

/**
 * The page's own policy: scripts and styles only from here, images from anywhere over https (a
 * token's image), API calls to this origin only. Inline styles are allowed for the chart library.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/**
 * The page's own HTML names the chains it runs on (`devnet` or `rpc`), so it links a contract to
 * a public explorer only where one can show it (docs/api.md "The page").
 */
const CHAIN_META = '<meta name="launchpad-chain" content="" />';

function prepare(files: PageFiles, chain: string): Map<string, Served> {
  const served = new Map<string, Served>();
  for (const [path, built] of files) {
    const file = path === '/' ? { ...built, body: Buffer.from(built.body.toString('utf8').replace(CHAIN_META, `<meta name="launchpad-chain" content="${chain}" />`)) } : built;
    const etag = `"${createHash('sha256').update(file.body).digest('base64url').slice(0, 22)}"`;
    served.set(path, { type: file.type, immutable: file.immutable, etag, identity: file.body, encoded: {} });
  }
  return served;
}

function encode(file: Served, encoding: 'br' | 'gzip'): Promise<Buffer> {
  file.encoded[encoding] ??=
    encoding === 'br'
      ? brotli(file.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 10, [constants.BROTLI_PARAM_SIZE_HINT]: file.identity.length } })
      : gz(file.identity, { level: 9 });
  return file.encoded[encoding];
}

export interface PageRoute {
  (ctx: Context, next: Next): Promise<void>;
  /** Loads the page now (a build from source takes about a second), so the first visitor does not wait. */
  warm(): Promise<void>;
}

export function pageRoute(load: () => Promise<PageFiles>, logger: Logger, options: { chain?: 'devnet' | 'rpc' } = {}): PageRoute {
  let ready: Promise<Map<string, Served>> | undefined;
  const files = () => {
    ready ??= load()
      .then((f) => prepare(f, options.chain ?? 'rpc'))
      .catch((e: unknown) => {
        ready = undefined; // the next request tries again
        logger.error('the page could not be built', { error: e instanceof Error ? e.message : String(e) });
        throw new ServiceUnavailable('The page is being built or could not be built; the API works. Try again shortly.', 5);
      });
    return ready;
  };
  const servePage = async function servePage(ctx: Context, next: Next): Promise<void> {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !(ctx.path === '/' || ctx.path.startsWith('/assets/'))) return next();
    const file = (await files()).get(ctx.path);
    if (!file) return next();
    ctx.status = 200;
    ctx.type = file.type;
    ctx.etag = file.etag;
    ctx.vary('Accept-Encoding');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (file.immutable) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    else {
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    }
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
    if (encoding === 'br' || encoding === 'gzip') {
      ctx.set('Content-Encoding', encoding);
      ctx.body = await encode(file, encoding);
    } else ctx.body = file.identity;
  };
  return Object.assign(servePage, {
    warm: () =>
      files().then(
        () => undefined,
        () => undefined, // logged; the first visitor's request builds it again
      ),
  });
}
