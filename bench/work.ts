/**
 * Work per paid request, counted (bench/instrument.ts in the measured processes, header bytes in
 * the load generator): the floor the throughput ratio moves with, and figures that do not move
 * with the machine's noise.
 */
import type { WorkCounts } from './instrument.js';

/** Per request: JSON-RPC calls by method, signatures, statements by kind, HTTP header bytes. */
export interface WorkPerRequest {
  rpc: number;
  rpcByMethod: Record<string, number>;
  rpcRequests: number;
  /** eth_sendRawTransaction + eth_sendTransaction. */
  txSent: number;
  sign: number;
  recover: number;
  verify: number;
  db: number;
  dbByKind: Record<string, number>;
  /** Request and response header bytes of the paid exchange (both HTTP round trips), client side. */
  headerBytes?: number;
}

export const NO_WORK: WorkCounts = { rpc: {}, rpcRequests: 0, rpcBytesOut: 0, ecdsa: { sign: 0, recover: 0, verify: 0, publicKey: 0 }, db: {}, dbPrepares: 0 };

const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const diffMap = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys({ ...a, ...b }).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]).filter(([, v]) => v !== 0));

/** What happened between two snapshots, divided by `n` requests. */
export function perRequest(before: WorkCounts, after: WorkCounts, n: number): WorkPerRequest {
  const per = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v / n]));
  const rpc = per(diffMap(before.rpc, after.rpc));
  const db = per(diffMap(before.db, after.db));
  return {
    rpc: sum(rpc),
    rpcByMethod: rpc,
    rpcRequests: (after.rpcRequests - before.rpcRequests) / n,
    txSent: (rpc.eth_sendRawTransaction ?? 0) + (rpc.eth_sendTransaction ?? 0),
    sign: (after.ecdsa.sign - before.ecdsa.sign) / n,
    recover: (after.ecdsa.recover - before.ecdsa.recover) / n,
    verify: (after.ecdsa.verify - before.ecdsa.verify) / n,
    db: sum(db),
    dbByKind: db,
  };
}

/** Adds two per-request figures (a request's own work and the work it left for the workers). */
export function addWork(a: WorkPerRequest, b: WorkPerRequest): WorkPerRequest {
  const add = (x: Record<string, number>, y: Record<string, number>) => Object.fromEntries(Object.keys({ ...x, ...y }).map((k) => [k, (x[k] ?? 0) + (y[k] ?? 0)]));
  return {
    rpc: a.rpc + b.rpc,
    rpcByMethod: add(a.rpcByMethod, b.rpcByMethod),
    rpcRequests: a.rpcRequests + b.rpcRequests,
    txSent: a.txSent + b.txSent,
    sign: a.sign + b.sign,
    recover: a.recover + b.recover,
    verify: a.verify + b.verify,
    db: a.db + b.db,
    dbByKind: add(a.dbByKind, b.dbByKind),
    ...(a.headerBytes !== undefined || b.headerBytes !== undefined ? { headerBytes: (a.headerBytes ?? 0) + (b.headerBytes ?? 0) } : {}),
  };
}

const f1 = (x: number) => (Math.abs(x - Math.round(x)) < 0.05 ? Math.round(x).toString() : x.toFixed(1));
const top = (m: Record<string, number>, n = 6) =>
  Object.entries(m)
    .filter(([, v]) => v >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k.replace(/^eth_/, '')} ${f1(v)}`)
    .join(', ');

/** One line: `rpc 9.1 (…) · tx 1.0 · sign 2 recover 1 · db 18 (…) · headers 2.9 kB`. */
export function workLine(w: WorkPerRequest): string {
  const parts = [
    `rpc ${f1(w.rpc)}${w.rpc ? ` (${top(w.rpcByMethod)})` : ''}`,
    `tx ${f1(w.txSent)}`,
    `ecdsa sign ${f1(w.sign)} recover ${f1(w.recover)}${w.verify ? ` verify ${f1(w.verify)}` : ''}`,
    `db ${f1(w.db)}${w.db ? ` (${top(w.dbByKind)})` : ''}`,
  ];
  if (w.headerBytes !== undefined) parts.push(`headers ${(w.headerBytes / 1000).toFixed(1)} kB`);
  return parts.join(' · ');
}

/** The median of each figure over rounds (maps: per key). */
export function medianWork(ws: WorkPerRequest[]): WorkPerRequest {
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const medMap = (ms: Record<string, number>[]) => {
    const keys = new Set(ms.flatMap((m) => Object.keys(m)));
    return Object.fromEntries([...keys].map((k) => [k, med(ms.map((m) => m[k] ?? 0))]));
  };
  const headers = ws.map((w) => w.headerBytes).filter((h): h is number => h !== undefined);
  return {
    rpc: med(ws.map((w) => w.rpc)),
    rpcByMethod: medMap(ws.map((w) => w.rpcByMethod)),
    rpcRequests: med(ws.map((w) => w.rpcRequests)),
    txSent: med(ws.map((w) => w.txSent)),
    sign: med(ws.map((w) => w.sign)),
    recover: med(ws.map((w) => w.recover)),
    verify: med(ws.map((w) => w.verify)),
    db: med(ws.map((w) => w.db)),
    dbByKind: medMap(ws.map((w) => w.dbByKind)),
    ...(headers.length ? { headerBytes: med(headers) } : {}),
  };
}
