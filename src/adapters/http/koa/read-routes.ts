/**
 * The free reads of the catalogue (src/app/catalogue) as Koa routes, by one loop: the path and
 * query parameters are checked with the operation's own input schema, the use case runs, and its
 * answer goes out in the success envelope.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { pathParams, type AnyRead, type ReadDeps } from '../../../app/kit/catalogue/operation.js';
import { successEnvelope } from '../../../app/kit/error-status.js';
import { parseQuery, parseWith, unstorableIssues } from '../../../app/kit/schemas.js';
import { NotFound } from '../../../domain/errors.js';
import type { z } from 'zod';
import { SIGN_IN_WITH_X_HEADER } from '../../../app/payments/extensions/wallet-proof.js';
import { readJsonBody } from './body.js';

/** The query string a read takes over HTTP: its input less the path parameters; a proven field may be left out. Null: it takes none. */
export function queryOf(op: AnyRead): z.ZodObject | null {
  const fromPath = Object.fromEntries(pathParams(op.http).map(([, field]) => [field, true] as const));
  let query: z.ZodObject = op.inputSchema.omit(fromPath);
  const proven = op.http.walletProof;
  if (proven) query = query.extend({ [proven]: (query.shape[proven] as z.ZodType).optional() });
  return Object.keys(query.shape).length > 0 ? query : null;
}

/** Koa's `/tokens/:id` as OpenAPI writes it: `/tokens/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

/** A wallet proven with Sign-In-With-X, for a read that lets a caller prove its wallet instead of naming it. */
export type ProvenWallet = (ctx: Context, proofRequired?: boolean) => Promise<string>;

/** Envelopes already serialised, per operation, by the answer object they carry. */
const serialised = new WeakMap<AnyRead, WeakMap<object, Buffer>>();

/**
 * The success envelope of `answer` as bytes. A kept answer (a token's view) is the same object for
 * every reader until it changes: its envelope is serialised once, not per response.
 */
export function envelopeBytes(op: AnyRead, answer: object): Buffer {
  let bodies = serialised.get(op);
  if (!bodies) serialised.set(op, (bodies = new WeakMap()));
  let body = bodies.get(answer);
  if (body === undefined) bodies.set(answer, (body = Buffer.from(JSON.stringify(successEnvelope(op.operation, answer)))));
  return body;
}

export function readRoutes(router: Router, deps: ReadDeps, reads: readonly AnyRead[], provenWallet: ProvenWallet): void {
  for (const op of reads) {
    const query = queryOf(op);
    const params = pathParams(op.http);
    if (op.http.method === 'post') {
      postRoute(router, deps, op, provenWallet);
      continue;
    }
    router.get(op.http.path, async (ctx) => {
      const input: Record<string, unknown> = query ? parseQuery(query, ctx.query as Record<string, unknown>) : {};
      for (const [name, field] of params) {
        const schema = op.inputSchema.shape[field] as z.ZodType;
        input[field] = op.http.lookup ? lookedUp(schema, field, ctx.params[name]) : parseWith(schema, ctx.params[name], name);
      }
      const proven = op.http.walletProof;
      if (proven && input[proven] === undefined) input[proven] = await provenWallet(ctx);
      // Cache-Control: no-cache asks for the view as the database has it this instant (no cached copy taken on trust).
      const result = await op.run(deps, input, { fresh: /\bno-cache\b/i.test(ctx.get('cache-control')) });
      ctx.status = 200;
      if (result === null || typeof result !== 'object') {
        ctx.body = successEnvelope(op.operation, result);
        return;
      }
      ctx.set('Content-Type', 'application/json; charset=utf-8'); // what `ctx.type = 'application/json'` sets, without its lookups
      ctx.body = envelopeBytes(op, result);
    });
  }
}

/**
 * A path parameter looked up as it is (`lookup`): an id its schema refuses — U+0000, any other
 * shape — is as unknown as any other id (404), and never reaches the database.
 */
function lookedUp(schema: z.ZodType, field: string, value: string | undefined): string | undefined {
  if (schema.safeParse(value).success && unstorableIssues(value).length === 0) return value;
  const resource = field.replace(/Id$/, '');
  throw new NotFound(`${resource.charAt(0).toUpperCase()}${resource.slice(1)} ${value ?? ''} does not exist.`, { resource, [field]: value });
}

/** A free `post` operation: the JSON body and the path parameters as its input; a SIGN-IN-WITH-X proof, when sent, as the proven wallet. */
function postRoute(router: Router, deps: ReadDeps, op: AnyRead, provenWallet: ProvenWallet): void {
  const params = pathParams(op.http);
  router.post(op.http.path, async (ctx) => {
    const body = await readJsonBody(ctx);
    const input: Record<string, unknown> = { ...(body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) };
    for (const [name, field] of params) input[field] = ctx.params[name];
    const parsed = parseWith(op.inputSchema, input);
    const proven = ctx.get(SIGN_IN_WITH_X_HEADER) || op.http.proofRequired ? await provenWallet(ctx, op.http.proofRequired) : undefined;
    const result = await op.run(deps, parsed, proven ? { provenWallet: proven } : {});
    ctx.status = 200;
    ctx.body = successEnvelope(op.operation, result);
  });
}
