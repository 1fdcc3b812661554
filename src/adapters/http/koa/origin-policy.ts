/**
 * Which Hosts the service answers to and which Origins are its own (docs/api.md "Browsers and other
 * origins", docs/decisions/0042): taken from its configuration (PUBLIC_URL, HOST, ALLOWED_HOSTS) and
 * the address a connection reached it at — never from the request's Host header, which a page on
 * a name rebound to this address (DNS rebinding) chooses.
 */

/** The connection a request came in on: the address and port this process answered at. */
export interface LocalEnd {
  localAddress?: string | undefined;
  localPort?: number | undefined;
}

export interface OriginPolicyOptions {
  /** Origins besides the service's own whose pages may call the API (CORS_ORIGINS); `'*'` allows any. */
  origins: '*' | readonly string[];
  /** The service's public origin (PUBLIC_URL): its own, and its host answered to. */
  publicUrl?: string | undefined;
  /** The address it listens on (HOST); a wildcard (`0.0.0.0`, `::`) means the address each connection reached. */
  listenHost?: string | undefined;
  /** Further host names it answers to (ALLOWED_HOSTS, e.g. a proxy's upstream name); `'*'` turns the Host check off. */
  allowedHosts?: '*' | readonly string[] | undefined;
}

/** The loopback names: a page cannot rebind them, and a local agent uses them (as the MCP SDK's localhostHostValidation). */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

export class OriginPolicy {
  private readonly listed: ReadonlySet<string> | null;
  private readonly named: ReadonlySet<string> | null;
  private readonly listenName: string | null;

  constructor(private readonly options: OriginPolicyOptions) {
    this.listed = options.origins === '*' ? null : new Set(options.origins);
    const host = options.listenHost;
    const listen = host === undefined ? null : hostnameOf(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
    this.listenName = listen !== null && !WILDCARD.has(listen) ? listen : null;
    if (options.allowedHosts === '*') {
      this.named = null;
    } else {
      const names = [...LOOPBACK, ...(options.allowedHosts ?? []).map((h) => hostnameOf(h) ?? h.toLowerCase())];
      if (options.publicUrl !== undefined) names.push(new URL(options.publicUrl).hostname);
      if (this.listenName !== null) names.push(this.listenName);
      this.named = new Set(names);
    }
  }

  /** Whether a request's Host names this service (port aside, as the MCP SDK checks it). */
  answersTo(host: string, local: LocalEnd): boolean {
    if (this.named === null) return true;
    const name = hostnameOf(host);
    return name !== null && (this.named.has(name) || name === localName(local));
  }

  /** Whether an Origin is the service's own: PUBLIC_URL, or plain HTTP to a name of the address and port it answered at. */
  isOwn(origin: string, local: LocalEnd): boolean {
    if (origin === this.options.publicUrl) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' || Number(url.port || 80) !== local.localPort) return false;
    return LOOPBACK.includes(url.hostname) || url.hostname === this.listenName || url.hostname === localName(local);
  }

  /** Whether a page on this Origin may call the API: the service's own, or one CORS_ORIGINS lists. */
  allows(origin: string, local: LocalEnd): boolean {
    return this.listed === null || this.listed.has(origin) || this.isOwn(origin, local);
  }
}

/** `Api.Example.com:443` → `api.example.com`, `[::1]:3000` → `[::1]`; null when it is no host. */
function hostnameOf(host: string): string | null {
  if (host === '') return null;
  try {
    const url = new URL(`http://${host}`);
    return url.pathname === '/' && !url.username && !url.search ? url.hostname : null;
  } catch {
    return null;
  }
}

/** The address a connection reached, as a Host names it (`::ffff:10.0.0.5` → `10.0.0.5`, `fe80::1` → `[fe80::1]`). */
function localName(local: LocalEnd): string | null {
  const a = local.localAddress;
  if (!a) return null;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (v4) return v4[1]!;
  return a.includes(':') ? `[${a.toLowerCase()}]` : a;
}
