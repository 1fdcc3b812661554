/**
 * Which URL a payment's `resource` may name. An entrypoint answers at `/entrypoints/<name>` and
 * `/entrypoints/<name>/invoke`, and `POST /tokens` is `token_create` under another path: each
 * group is one resource, so a payment signed at one path pays (and replays) at the others. A paid
 * MCP tool is the resource `mcp://tool/<name>` (the x402 MCP transport's): a resource of its own,
 * never the same as an HTTP path.
 */
const ALIASES: Record<string, string> = { '/tokens': '/entrypoints/token_create' };

/** The resource of a paid MCP tool. */
export const mcpToolResource = (tool: string): string => `mcp://tool/${tool}`;

export function canonicalResourcePath(url: string): string {
  if (/^mcp:\/\//i.test(url)) return url.replace(/\/+$/, '');
  let path: string;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    return url;
  }
  path = path.replace(/\/+$/, '').replace(/\/invoke$/, '');
  return ALIASES[path] ?? path;
}

/** Same resource: the same canonical path (hosts differ behind proxies and are not compared). */
export function sameResource(a: string, b: string): boolean {
  return canonicalResourcePath(a) === canonicalResourcePath(b);
}
