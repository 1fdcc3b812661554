/** Reads a JSON request body with a size limit; every failure is a domain error for the envelope. */
import type { Context } from 'koa';
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType } from './http-errors.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

export async function readJsonBody(ctx: Context, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw new PayloadTooLarge(limit);
  const type = ctx.get('content-type');
  const hasBody = declared > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) {
    // An empty body on an entrypoint is an empty input, not a media-type problem.
    if (type && !ctx.is('application/json')) throw new UnsupportedMediaType();
    return {};
  }
  if (!ctx.is('application/json')) throw new UnsupportedMediaType();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      ctx.req.resume();
      throw new PayloadTooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidJson();
  }
}
