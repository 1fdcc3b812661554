/**
 * The client address a rate limit is keyed by (docs/rate-limits.md): the socket peer, unless
 * TRUST_PROXY says which peers are proxies; then `proxy-addr` (Express's) walks X-Forwarded-For
 * from the right past the trusted hops or addresses. IPv6 clients are grouped by their /64 (one
 * subscriber's allocation).
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'cidrs'; trust: (address: string, hop: number) => boolean };

export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (!value || value === 'false' || value === '0') return { kind: 'none' };
  if (/^\d+$/.test(value)) return { kind: 'hops', hops: Number(value) };
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (isIP(entry.split('/')[0] ?? '') === 0) throw new Error(`TRUST_PROXY: "${entry}" is not an IP address or CIDR`);
  }
  return { kind: 'cidrs', trust: proxyaddr.compile(entries) };
}

function normalise(ip: string): string {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return v4mapped ? v4mapped[1]! : ip;
}

export function clientIp(socketAddress: string | undefined, forwardedFor: string | undefined, trust: TrustProxy): string {
  const peer = normalise(socketAddress ?? 'unknown');
  if (trust.kind === 'none' || !forwardedFor) return peer;
  const req = { socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
  const trusted = trust.kind === 'hops' ? (_: string, hop: number) => hop < trust.hops : trust.trust;
  const ip = normalise(proxyaddr(req, trusted));
  // An entry that is no address (a proxy that forwards garbage) is no client: keep the peer.
  return isIP(ip) === 0 ? peer : ip;
}

/** The client of a request: its socket peer, or what X-Forwarded-For says past the trusted proxies. */
export function clientOf(req: IncomingMessage, trust: TrustProxy): string {
  const forwarded = req.headers['x-forwarded-for'];
  return clientIp(req.socket.remoteAddress, (Array.isArray(forwarded) ? forwarded.join(', ') : forwarded) || undefined, trust);
}

/** The rate-limit key of a request's client (clientOf, then rateLimitKey). */
export function clientKeyOf(req: IncomingMessage, trust: TrustProxy): string {
  return rateLimitKey(clientOf(req, trust));
}

/** The rate-limit key: the IPv4 address, or the /64 prefix of an IPv6 address. */
export function rateLimitKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => (g || '0').toLowerCase().replace(/^0+(?=.)/, ''));
}
