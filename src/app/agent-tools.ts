/**
 * The service as tools an agent calls (docs/agents.md), made from the catalogue of operations
 * (docs/decisions/0043): a free tool is a read of the catalogue (catalogue.ts, written in each room) that names a
 * tool; a paid tool is an entrypoint (kit/catalogue/entrypoint.ts), paid through the same payment pipeline as
 * its HTTP route. The MCP adapter serves this list; the discovery documents describe it.
 */
import type { z } from 'zod';
import type { ApplicationDeps } from './application.js';
import type { AnyRead } from './kit/catalogue/operation.js';
import { reads } from './catalogue.js';
import type { AnyEntrypoint } from './kit/catalogue/entrypoint.js';

interface ToolBase {
  name: string;
  /** A short human title (MCP `annotations.title`). */
  title: string;
  description: string;
  /** Reads only: changes nothing anywhere (MCP `readOnlyHint`). */
  readOnly: boolean;
}

export interface FreeTool<I = unknown> extends ToolBase {
  kind: 'free';
  inputSchema: z.ZodType;
  outputSchema: z.ZodType;
  run(deps: ApplicationDeps, input: I): Promise<unknown>;
}

export interface PaidTool extends ToolBase {
  kind: 'paid';
  /** The entrypoint it pays for: its input and output schemas, price, rules and operation. */
  entrypoint: AnyEntrypoint;
  /** What it does, without how x402 pays it (for documents that explain paying once). */
  summary: string;
}

export type AgentTool = FreeTool | PaidTool;

const PAYING =
  'Paid with x402: called without payment it answers isError with the x402 PaymentRequired (structuredContent); an x402 MCP client signs one of its offers and calls again with the PaymentPayload in _meta["x402/payment"]. The payer is the caller (creator, buyer, seller).';

/** The free tools: every read that names a tool, in the catalogue's order. */
export function freeTools(catalogue: readonly AnyRead[] = reads()): FreeTool[] {
  return catalogue.flatMap((r) =>
    r.tool
      ? [{ kind: 'free', name: r.tool.name, title: r.tool.title, readOnly: r.tool.readOnly ?? true, description: r.description, inputSchema: r.inputSchema, outputSchema: r.outputSchema, run: (deps, input) => r.run(deps, input, {}) } satisfies FreeTool]
      : [],
  );
}

/** The paid tools of an entrypoint catalogue. */
export function paidTools(entrypoints: ReadonlyMap<string, AnyEntrypoint>): PaidTool[] {
  return [...entrypoints.values()].map((entrypoint) => {
    const { name, title, readOnly, howTo } = entrypoint.tool;
    return {
      kind: 'paid',
      name,
      title,
      readOnly,
      entrypoint,
      summary: [entrypoint.description, howTo].filter(Boolean).join(' '),
      description: [entrypoint.description, howTo, PAYING].filter(Boolean).join(' '),
    };
  });
}

/** Every tool: the free reads, then the paid entrypoints. */
export function agentTools(entrypoints: ReadonlyMap<string, AnyEntrypoint>): AgentTool[] {
  return [...freeTools(), ...paidTools(entrypoints)];
}
