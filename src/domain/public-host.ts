/**
 * Whether a URL's host is one on the public internet (docs/api.md "Creating a token", decision
 * 0065): what a URL the page shows to every visitor (a token's imageUrl, its website) must name,
 * so that no visitor's browser is sent to its own machine or network. The host is judged as the
 * URL parser spelled it (`https://2130706433/` and `https://0x7f.1/` are 127.0.0.1 by then):
 * never resolved — a name is taken as it is written, see the decision for why.
 */

/** Names that never lead to the public internet (RFC 6761, 6762, 8375; ICANN's .internal). */
const LOCAL_NAMES = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa)$/;

/** IPv4 ranges that are not globally reachable (RFC 6890 and its updates): [first octets, prefix length]. */
const NOT_PUBLIC_V4: [number[], number][] = [
  [[0], 8], // "this network", 0.0.0.0
  [[10], 8], // private
  [[100, 64], 10], // shared address space (CGNAT)
  [[127], 8], // loopback
  [[169, 254], 16], // link-local
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, and the broadcast address
];

function v4Number(octets: number[]): number {
  return octets.reduce((n, o) => n * 256 + o, 0);
}

function publicV4(octets: number[]): boolean {
  const n = v4Number(octets);
  return !NOT_PUBLIC_V4.some(([first, bits]) => {
    const base = v4Number([...first, 0, 0, 0, 0].slice(0, 4));
    const size = 2 ** (32 - bits);
    return n >= base && n < base + size;
  });
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (compressed, lower-case hex, no zone). */
function v6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const [head, tail] = [part(halves[0]!), halves.length === 2 ? part(halves[1]!) : []];
  // An embedded dotted IPv4 at the end (::ffff:1.2.3.4) is two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  const groups = (list: string[]) => list.flatMap((g) => (g.includes('.') ? dottedToGroups(g) : [parseInt(g, 16)]));
  const h = groups(head);
  const t = groups(tail);
  if (last?.includes('.') && dottedToGroups(last).length !== 2) return null;
  const missing = 8 - h.length - t.length;
  const all = halves.length === 2 ? [...h, ...Array<number>(Math.max(missing, 0)).fill(0), ...t] : h;
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

function dottedToGroups(dotted: string): number[] {
  const o = dotted.split('.').map(Number);
  if (o.length !== 4 || o.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return [];
  return [o[0]! * 256 + o[1]!, o[2]! * 256 + o[3]!];
}

function publicV6(groups: number[]): boolean {
  const [g0, g1] = groups as [number, number];
  // Only global unicast (2000::/3) is public: this leaves out ::, ::1, IPv4-mapped and -compatible
  // addresses (::ffff:0:0/96, ::/96), NAT64 (64:ff9b::/96), unique local (fc00::/7), link-local
  // (fe80::/10), site-local (fec0::/10) and multicast (ff00::/8).
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 === 0x0db8) return false; // documentation
  if (g0 === 0x2001 && g1 < 0x0200) return false; // IETF protocol assignments (Teredo among them)
  // 6to4 (2002::/16) carries an IPv4 address: public only if that one is.
  if (g0 === 0x2002) return publicV4([g1 >> 8, g1 & 0xff, groups[2]! >> 8, groups[2]! & 0xff]);
  return true;
}

/**
 * Why `hostname` (a WHATWG URL's `hostname`: lower-case, IPv4 in dotted decimal, IPv6 in
 * brackets) is no public host, or null when it is one.
 */
export function notPublicHost(hostname: string): string | null {
  const host = hostname.replace(/\.$/, '');
  if (host.startsWith('[')) {
    const groups = v6Groups(host.slice(1, -1));
    if (!groups) return 'is not an IPv6 address the service can read';
    return publicV6(groups) ? null : 'is a loopback, private, link-local or otherwise non-public IPv6 address';
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    return publicV4(host.split('.').map(Number)) ? null : 'is a loopback, private, link-local or otherwise non-public IPv4 address';
  }
  // A last label of digits only is an address written some way the parser did not turn into one (and no top-level domain).
  if (/(^|\.)(0x[0-9a-f]*|\d+)$/.test(host)) return 'is a numeric host that is no public address';
  if (LOCAL_NAMES.test(host)) return 'is a local name (localhost, .local, .internal …), not a public host';
  if (!host.includes('.')) return 'is a name of one label (a machine on the local network), not a public host';
  return null;
}
