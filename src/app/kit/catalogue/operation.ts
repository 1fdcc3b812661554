/**
 * One entry of the catalogue of operations (docs/decisions/0043): what every transport needs to
 * serve an operation — its name, where it answers over HTTP, its input and output schemas, its
 * price rule, a description an LLM can act on, and the use case it calls. The Koa routes, the MCP
 * tools, the OpenAPI document, the discovery documents and llms.txt are made from these entries.
 */
import type { z } from 'zod';
import type { NetworkDetector } from '../../../ports/network-detector.js';
import type { AppDeps } from '../deps.js';
import type { AppMetrics } from '../metrics.js';
import type { PriceBoard } from '../../pricing/index.js';
import type { Settings } from '../settings.js';

/** What the reads use: the use cases' ports, the network detector (a wallet's network) and the quote router's board. */
export type ReadDeps = AppDeps & { detector: NetworkDetector; metrics: AppMetrics; priceBoard: PriceBoard };

/** What an operation costs: nothing, a fixed USD amount, or an amount the input sets (described by `rule`). */
export type PriceRule = { kind: 'free' } | { kind: 'fixed'; usd(settings: Settings): bigint } | { kind: 'computed'; rule: string };

/** Where a read answers over HTTP. */
export interface ReadRoute {
  /** A Koa path (`/api/tokens/:id/trades`); each `:param` fills an input field (`params`). */
  path: string;
  /** Path parameter → input field, where they are named differently (`id` → `tokenId`). */
  params?: Record<string, string>;
  /**
   * The path parameter is an id looked up as it is: one that is malformed is as unknown as any
   * other (404), not a 400 — answered without asking the store (U+0000 never reaches a query).
   */
  lookup?: boolean;
  /** The input field a caller may leave out over HTTP by proving it with Sign-In-With-X (docs/api.md). */
  walletProof?: string;
  /**
   * Statuses besides 200, 400 (an input to check) and 404 (a path parameter to find) it answers
   * with: a 404 for an id in its query, a 409 for a rule (the OpenAPI document lists them).
   */
  errors?: number[];
  /**
   * `post`: a free operation that changes something (cancelling an order): its input beside the
   * path parameters is the JSON body, and a SIGN-IN-WITH-X proof, when sent, reaches the use case
   * as `call.provenWallet` (never as an input field a caller could simply name). Default `get`.
   */
  method?: 'get' | 'post';
  /**
   * A `post` only a SIGN-IN-WITH-X proof may do (a creator hiding a comment): without the header it
   * is refused before the use case runs. Such an entry names no MCP tool: a tool call carries no proof.
   */
  proofRequired?: boolean;
}

/** How a transport serves the call: what only some transports can say. */
export interface ReadCall {
  /** The caller asks for the view as the database has it this instant (HTTP `Cache-Control: no-cache`). */
  fresh?: boolean;
  /** The wallet a SIGN-IN-WITH-X proof proved, on a `post` operation that was sent one. */
  provenWallet?: string;
}

/** A free read. */
export interface Read<S extends z.ZodObject = z.ZodObject> {
  kind: 'read';
  /** The answer's `operation` (the envelope) and the OpenAPI operationId. */
  operation: string;
  /** Served as an MCP tool too: its name and short human title; `readOnly` false for a `post` that changes something. */
  tool?: { name: string; title: string; readOnly?: boolean };
  /** What it answers, for an LLM deciding to call it. */
  description: string;
  /** The same in a few words, for llms.txt. */
  summary: string;
  http: ReadRoute;
  /** The input: every path parameter and query parameter, as an MCP tool's arguments. */
  inputSchema: S;
  outputSchema: z.ZodType;
  price: { kind: 'free' };
  run(deps: ReadDeps, input: z.output<S>, call: ReadCall): Promise<unknown>;
  /**
   * The answer this process keeps for `input` and may give with no I/O at all (a token's view the
   * change feed vouches for), else undefined: what `run` would answer this instant. The HTTP
   * adapter answers a plain request for it before the framework (decision 0052).
   */
  kept?(deps: ReadDeps, input: z.output<S>): object | undefined;
}

/** A read of any input: the catalogue is heterogeneous by nature. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRead = Read<any>;

/** A read as its entry names it: its operation, its path and its output schema kept in its type (the API's types come from these). */
export type NamedRead<N extends string = string, O extends z.ZodType = z.ZodType, P extends string = string> = AnyRead & {
  operation: N;
  outputSchema: O;
  http: ReadRoute & { path: P };
};

/** An entry typed by its schema (its `run` sees the parsed input), kept in a table of any. */
export const read = <S extends z.ZodObject, N extends string, O extends z.ZodType, P extends string>(
  entry: Omit<Read<S>, 'kind' | 'price' | 'operation' | 'outputSchema' | 'http'> & { operation: N; outputSchema: O; http: ReadRoute & { path: P } },
): NamedRead<N, O, P> => ({ kind: 'read', price: { kind: 'free' }, ...entry });

/** The path parameters of a read, as `[path name, input field]`. */
export function pathParams(route: ReadRoute): [name: string, field: string][] {
  return [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, route.params?.[name!] ?? name!]);
}
