/**
 * viem's HTTP transport on node:http (rpc-transport.ts) answers as viem's fetch-based one does: a
 * result, a JSON-RPC error, an HTTP error, a timeout, a node that is not there.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BaseError, createPublicClient, HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcTransport } from '../../../src/adapters/kit/evm/rpc-transport.js';

let server: Server;
let url = '';
let answer: (body: { id: number; method: string }) => { status: number; body: string; delayMs?: number };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = answer(JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string });
      setTimeout(() => res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Whether viem's error has a `kind` among its causes. */
const caused = (e: unknown, kind: abstract new (...args: never[]) => unknown) => e instanceof BaseError && e.walk((c) => c instanceof kind) !== null;

const client = (u = url, timeout = 2_000) => createPublicClient({ transport: rpcTransport(u, { timeout, retryCount: 0 }) });

describe('rpcTransport', () => {
  it('returns the result', async () => {
    answer = (b) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: b.id, result: '0x2a' }) });
    expect(await client().getBlockNumber({ cacheTime: 0 })).toBe(42n);
  });

  it('a JSON-RPC error is viem’s RPC error; an HTTP error with no JSON-RPC body is an HttpRequestError', async () => {
    answer = (b) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32000, message: 'nonce too low' } }) });
    await expect(client().getBlockNumber({ cacheTime: 0 })).rejects.toThrow(/nonce too low/);
    answer = () => ({ status: 503, body: JSON.stringify({ error: 'devnet journal: disk full' }) });
    await expect(client().getBlockNumber({ cacheTime: 0 })).rejects.toSatisfy((e: unknown) => caused(e, HttpRequestError));
    answer = (b) => ({ status: 500, body: JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32603, message: 'internal' } }) });
    await expect(client().getBlockNumber({ cacheTime: 0 })).rejects.toSatisfy((e: unknown) => caused(e, RpcRequestError));
  });

  it('times out as viem does, and a node that is not there fails the call', async () => {
    answer = (b) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: b.id, result: '0x1' }), delayMs: 500 });
    await expect(client(url, 100).getBlockNumber({ cacheTime: 0 })).rejects.toSatisfy((e: unknown) => caused(e, TimeoutError));
    await expect(client('http://127.0.0.1:9').getBlockNumber({ cacheTime: 0 })).rejects.toSatisfy((e: unknown) => caused(e, HttpRequestError));
  });
});
