/**
 * viem's HTTP transport on node:http with a keep-alive agent instead of the global fetch. Each
 * JSON-RPC call through fetch builds a Request, a Response, web streams and abort signals; on the
 * paid path (a dozen calls per paid request: verify, settle, deliveries, receipts) that was ≈ 8% of
 * the service's thread in the profile (docs/performance.md). The answer is the same: status, headers and
 * the body as text, read within viem's timeout; a body past `MAX_BODY_BYTES` fails the call as
 * viem's own limit does.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createPublicClient, http, type HttpTransport, type HttpTransportConfig, type PublicClient } from 'viem';
import type { Network } from '../../../domain/network.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

interface RpcResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  body: null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

const headerOf = (headers: IncomingHttpHeaders) => (name: string) => {
  const v = headers[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
};

/** The subset of fetch viem's HTTP transport calls, on node:http. */
export function rpcFetch(url: string | URL, init: { body?: string; headers?: Record<string, string>; method?: string; signal?: AbortSignal | null } = {}): Promise<RpcResponse> {
  return new Promise((resolve, reject) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    const secure = target.protocol === 'https:';
    const options = { method: init.method ?? 'POST', headers: init.headers ?? {}, agent: secure ? agents.https : agents.http, ...(init.signal ? { signal: init.signal } : {}) };
    const req = (secure ? httpsRequest : httpRequest)(target, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) req.destroy(new Error(`RPC response larger than ${MAX_BODY_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          statusText: res.statusMessage ?? '',
          headers: { get: headerOf(res.headers) },
          body: null,
          text: async () => text,
          json: async () => JSON.parse(text) as unknown,
        });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** viem's `http(url, config)` with calls made by `rpcFetch` (no size check of its own: rpcFetch has one). */
export function rpcTransport(url: string, config: HttpTransportConfig = {}): HttpTransport {
  return http(url, { ...config, fetchFn: rpcFetch as unknown as typeof fetch, maxResponseBodySize: false } as HttpTransportConfig);
}

/** A read-only client per network, made on first use from its RPC URL (10 s per call). */
export function publicClients(rpcUrls: Partial<Record<Network, string>>): (network: Network) => PublicClient {
  const clients = new Map<Network, PublicClient>();
  return (network) => {
    let c = clients.get(network);
    if (!c) {
      const url = rpcUrls[network];
      if (!url) throw new Error(`no RPC configured for ${network}`);
      c = createPublicClient({ transport: rpcTransport(url, { timeout: 10_000 }) }) as PublicClient;
      clients.set(network, c);
    }
    return c;
  };
}
