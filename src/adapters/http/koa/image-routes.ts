/**
 * GET /images/<sha256>.webp (docs/api.md "Token images"): the bytes themselves, not a JSON read
 * of the catalogue (decision 0049). Content-addressed, so cached for ever by anyone: an ETag of
 * the hash, 304 on If-None-Match, and nothing a browser could take for a page (nosniff, a CSP
 * that runs nothing). Served before the free-request budget, like the page's assets: a feed of
 * fifty cards is fifty thumbnails.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { ImageReads } from '../../../app/tokens/image-reads.js';
import { STORED_IMAGE_EXTENSION } from '../../../domain/image.js';
import type { UnitOfWork } from '../../../ports/unit-of-work.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const FILE = new RegExp(`^([0-9a-f]{64})\\.${STORED_IMAGE_EXTENSION}$`);

export function imageRoutes(uow: Pick<UnitOfWork, 'run'>): Router {
  const reads = new ImageReads(uow);
  const router = new Router();
  router.get('/images/:file', async (ctx: Context, next) => {
    const sha = FILE.exec(ctx.params.file ?? '')?.[1];
    const image = sha ? await reads.get(sha) : null;
    if (!image) return next(); // 404 by the routes' last answer, as any unknown path
    const etag = `"${image.sha256}"`;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', IMMUTABLE);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    if (matches(ctx.get('if-none-match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = image.contentType;
    ctx.body = Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength);
  });
  return router;
}

/**
 * If-None-Match against the one ETag an image has (RFC 9110 §13.1.2, weak comparison). Not Koa's
 * `ctx.fresh`: it calls anything asked with `Cache-Control: no-cache` stale, which is what fetch()
 * sends with an If-None-Match of its own, though an origin server answers the condition either way.
 */
function matches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
