/**
 * The client address a rate limit is keyed by (SPEC §11): the socket peer, unless TRUST_PROXY
 * says which peers are proxies; then the right-most X-Forwarded-For entry that is not a trusted
 * proxy. IPv6 clients are grouped by their /64 (one subscriber's allocation).
 */
import { BlockList, isIP } from 'node:net';

export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'cidrs'; list: BlockList };

export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (!value || value === 'false' || value === '0') return { kind: 'none' };
  if (/^\d+$/.test(value)) return { kind: 'hops', hops: Number(value) };
  const list = new BlockList();
  for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0) throw new Error(`TRUST_PROXY: "${entry}" is not an IP address or CIDR`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(bits), type);
  }
  return { kind: 'cidrs', list };
}

function normalise(ip: string): string {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return v4mapped ? v4mapped[1]! : ip;
}

function isTrusted(trust: TrustProxy, ip: string): boolean {
  if (trust.kind !== 'cidrs') return false;
  const family = isIP(ip);
  return family !== 0 && trust.list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

export function clientIp(socketAddress: string | undefined, forwardedFor: string | undefined, trust: TrustProxy): string {
  const peer = normalise(socketAddress ?? 'unknown');
  if (trust.kind === 'none' || !forwardedFor) return peer;
  const chain = forwardedFor.split(',').map((s) => normalise(s.trim())).filter((s) => isIP(s) !== 0);
  if (trust.kind === 'hops') {
    // The peer is the first trusted hop; each further hop is one more X-Forwarded-For entry from the right.
    const index = chain.length - trust.hops;
    return trust.hops <= 0 ? peer : (chain[Math.max(index, 0)] ?? peer);
  }
  if (!isTrusted(trust, peer)) return peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!isTrusted(trust, chain[i]!)) return chain[i]!;
  }
  return chain[0] ?? peer;
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
