/** Where the service listens and how it answers the public: address, proxies, origins, limits, logs. */
import { z } from 'zod';
import type { Parsed } from './env-values.js';

/** A URL, or undefined when `text` is none. */
function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** "*" or a comma-separated list, each entry read by `read` (undefined: refused with `expected`). */
const starOrList = (read: (entry: string) => string | undefined, expected: string) =>
  z.string().transform((v, ctx) => {
    if (v.trim() === '*') return '*' as const;
    const items: string[] = [];
    for (const entry of v.split(',').map((s) => s.trim()).filter(Boolean)) {
      const item = read(entry);
      if (item === undefined) {
        ctx.addIssue({ code: 'custom', message: `must be "*" or ${expected}; not "${entry}"` });
        return z.NEVER;
      }
      items.push(item);
    }
    return items;
  });

/** "*" or a comma-separated list of origins, e.g. "https://app.example.com,http://localhost:5173". */
const corsOrigins = starOrList((entry) => {
  const url = urlOf(entry);
  return url && /^https?:$/.test(url.protocol) && url.pathname === '/' && !url.search && !url.hash ? url.origin : undefined;
}, 'origins (scheme://host[:port], no path), e.g. "https://app.example.com"');

/** "*" or comma-separated host names (no scheme, no path; a port is ignored), e.g. "launchpad.internal,10.0.0.5". */
const allowedHosts = starOrList((entry) => {
  const url = urlOf(`http://${entry}`);
  return url && url.pathname === '/' && !url.search && !url.hash && !url.username && !entry.includes('/') ? url.hostname : undefined;
}, 'host names separated by commas, e.g. "launchpad.internal,10.0.0.5"');

export const serverEnv = {
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  RATE_LIMIT_FREE_PER_MINUTE: z.coerce.number().int().min(0).default(100),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .refine((v) => new URL(v).pathname === '/' && !new URL(v).search, 'must be an origin (scheme://host[:port]), no path')
    .optional(),
  CORS_ORIGINS: corsOrigins.optional(),
  ALLOWED_HOSTS: allowedHosts.optional(),
  INFO_ACCESS_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  MAX_EVENT_STREAMS: z.coerce.number().int().min(1).default(1_000),
  MAX_EVENT_STREAMS_PER_CLIENT: z.coerce.number().int().min(1).default(10),
};

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  trustProxy: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** `auto`: readable lines on a terminal, JSON lines otherwise (docs/operations.md "Logs"). */
  logFormat: 'auto' | 'json' | 'pretty';
  rateLimitPerMinute: number;
  /**
   * The origin clients reach the service at (behind proxies too): discovery documents name it and
   * Sign-In-With-X proofs must be bound to it. Unset: the request's own origin for documents.
   */
  publicUrl: string | undefined;
  /** Origins besides the service's own whose pages may call the API from a browser (docs/api.md "Browsers and other origins"). */
  corsOrigins: '*' | string[];
  /**
   * Host names the service answers to on its paid routes and /mcp besides PUBLIC_URL's, HOST's and
   * the loopback names (docs/decisions/0042); `'*'`: any Host (the Origin check alone remains).
   */
  allowedHosts: '*' | string[];
  /** How long token_info bought once stays free to the same wallet, proven by Sign-In-With-X (0: never). */
  infoAccessSeconds: number;
  /** Concurrent /api/events streams in total and per client address. */
  maxEventStreams: number;
  maxEventStreamsPerClient: number;
}

export function readServer(e: Parsed<typeof serverEnv>): ServerConfig {
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    rateLimitPerMinute: e.RATE_LIMIT_FREE_PER_MINUTE,
    publicUrl: e.PUBLIC_URL === undefined ? undefined : new URL(e.PUBLIC_URL).origin,
    corsOrigins: e.CORS_ORIGINS ?? [],
    allowedHosts: e.ALLOWED_HOSTS ?? [],
    infoAccessSeconds: e.INFO_ACCESS_SECONDS,
    maxEventStreams: e.MAX_EVENT_STREAMS,
    maxEventStreamsPerClient: e.MAX_EVENT_STREAMS_PER_CLIENT,
  };
}
