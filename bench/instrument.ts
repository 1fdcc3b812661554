/**
 * Counts the work a benchmarked process does, without touching its code: a module preloaded with
 * `node --import tsx --import ./bench/instrument.ts <entry>` (bench/processes.ts adds it) wraps,
 * on the process's main thread,
 *
 *   - every outgoing HTTP request that carries JSON-RPC (node:http's ClientRequest): calls by
 *     method, HTTP requests, and the bytes of their bodies;
 *   - secp256k1 (@noble/curves, its ESM and CommonJS copies): signs, public-key recoveries,
 *     verifications, public keys derived (the copy viem resolves, hoisted: deliberately not
 *     declared in package.json, where a declared one could become another copy than viem's);
 *   - the database drivers: better-sqlite3 statements run (and prepared), node-postgres queries,
 *     by their first word (select, insert, update, begin, commit, …).
 *
 * and answers `GET /` on the unix socket `BENCH_COUNTS_SOCKET` with the totals so far as JSON,
 * so the benchmark takes a snapshot before and after a round and divides by its requests. Other
 * threads (the devnet's RPC proxy, which only forwards what the main thread sends) are not
 * counted. Without BENCH_COUNTS_SOCKET nothing is wrapped.
 */
import { ClientRequest, createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export interface WorkCounts {
  rpc: Record<string, number>;
  rpcRequests: number;
  rpcBytesOut: number;
  ecdsa: { sign: number; recover: number; verify: number; publicKey: number };
  db: Record<string, number>;
  dbPrepares: number;
}

const counts: WorkCounts = { rpc: {}, rpcRequests: 0, rpcBytesOut: 0, ecdsa: { sign: 0, recover: 0, verify: 0, publicKey: 0 }, db: {}, dbPrepares: 0 };
const bump = (m: Record<string, number>, k: string, n = 1) => (m[k] = (m[k] ?? 0) + n);

const METHOD = /"method"\s*:\s*"([^"]+)"/g;

/** A JSON-RPC body's calls by method (one call or a batch), read without parsing the JSON: the count should cost next to nothing. */
function countRpcBody(body: unknown): void {
  if (body === undefined || body === null) return;
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
  if (!text || !text.includes('"jsonrpc"')) return;
  counts.rpcRequests += 1;
  counts.rpcBytesOut += Buffer.byteLength(text);
  for (const m of text.matchAll(METHOD)) bump(counts.rpc, m[1]!);
}

function wrapHttp(): void {
  const proto = ClientRequest.prototype as unknown as { write: (...a: unknown[]) => boolean; end: (...a: unknown[]) => unknown };
  const { write, end } = proto;
  const pending = new WeakMap<object, unknown[]>();
  proto.write = function (this: object, chunk: unknown, ...rest: unknown[]) {
    const parts = pending.get(this) ?? [];
    parts.push(chunk);
    pending.set(this, parts);
    return write.call(this, chunk, ...rest);
  };
  proto.end = function (this: object, chunk?: unknown, ...rest: unknown[]) {
    const parts = pending.get(this) ?? [];
    if (chunk !== undefined && typeof chunk !== 'function') parts.push(chunk);
    if (parts.length > 0) countRpcBody(parts.length === 1 ? parts[0] : parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : String(p))).join(''));
    pending.delete(this);
    return end.call(this, chunk, ...rest);
  };
}

interface Curve {
  sign: (...a: unknown[]) => unknown;
  verify: (...a: unknown[]) => unknown;
  getPublicKey: (...a: unknown[]) => unknown;
  Signature: { prototype: { recoverPublicKey: (...a: unknown[]) => unknown } };
}

const wrapped = new WeakSet<object>();
function wrapCurve(curve: Curve): void {
  if (wrapped.has(curve)) return;
  wrapped.add(curve);
  const { sign, verify, getPublicKey } = curve;
  curve.sign = (...a) => (counts.ecdsa.sign++, sign(...a));
  curve.verify = (...a) => (counts.ecdsa.verify++, verify(...a));
  curve.getPublicKey = (...a) => (counts.ecdsa.publicKey++, getPublicKey(...a));
  const proto = curve.Signature.prototype;
  const recover = proto.recoverPublicKey;
  proto.recoverPublicKey = function (this: unknown, ...a: unknown[]) {
    counts.ecdsa.recover++;
    return recover.apply(this, a);
  };
}

const firstWord = (sql: unknown) => (typeof sql === 'string' ? (/^\s*(\w+)/.exec(sql)?.[1] ?? '?').toLowerCase() : '?');

type BetterSqlite = new (path: string) => { prepare(sql: string): object; close(): void };

/** better-sqlite3: statements prepared, and each run by the first word of its SQL (its Statement class is reached through a statement). */
function wrapSqlite(Database: BetterSqlite): void {
  const db = (Database as unknown as { prototype: Record<string, unknown> }).prototype;
  const prepare = db.prepare as (...a: unknown[]) => object;
  db.prepare = function (this: unknown, ...a: unknown[]) {
    counts.dbPrepares++;
    return prepare.apply(this, a);
  };
  const exec = db.exec as (...a: unknown[]) => unknown;
  db.exec = function (this: unknown, sql: unknown, ...rest: unknown[]) {
    bump(counts.db, firstWord(sql));
    return exec.call(this, sql, ...rest);
  };
  const probe = new Database(':memory:');
  const st = Object.getPrototypeOf(prepare.call(probe, 'select 1')) as Record<string, unknown>;
  probe.close();
  for (const m of ['all', 'run', 'get', 'iterate']) {
    const f = st[m] as (...a: unknown[]) => unknown;
    st[m] = function (this: { source?: string }, ...rest: unknown[]) {
      bump(counts.db, firstWord(this.source));
      return f.apply(this, rest);
    };
  }
}

function wrapPg(pg: { Client: { prototype: Record<string, unknown> } }): void {
  const proto = pg.Client.prototype;
  const query = proto.query as (...a: unknown[]) => unknown;
  proto.query = function (this: unknown, q: unknown, ...rest: unknown[]) {
    bump(counts.db, firstWord(typeof q === 'string' ? q : (q as { text?: string } | null)?.text));
    return query.call(this, q, ...rest);
  };
}

async function install(socket: string): Promise<void> {
  wrapHttp();
  const require = createRequire(join(process.cwd(), 'package.json'));
  const optional = (name: string) => {
    try {
      return require(name) as unknown;
    } catch {
      return null;
    }
  };
  const cjs = optional('@noble/curves/secp256k1') as { secp256k1: Curve } | null;
  if (cjs) wrapCurve(cjs.secp256k1);
  try {
    wrapCurve(((await import('@noble/curves/secp256k1')) as unknown as { secp256k1: Curve }).secp256k1);
  } catch {
    // not installed here
  }
  const sqlite = optional('better-sqlite3');
  if (sqlite) wrapSqlite(sqlite as BetterSqlite);
  const pg = optional('pg');
  if (pg) wrapPg(pg as Parameters<typeof wrapPg>[0]);
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(counts));
  });
  server.listen(socket);
  server.unref();
}

const socket = process.env.BENCH_COUNTS_SOCKET;
if (isMainThread && socket) await install(socket);
