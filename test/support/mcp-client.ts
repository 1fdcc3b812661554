/**
 * An agent's side of MCP in tests: the official SDK's (v2) Client over
 * StreamableHTTPClientTransport, and payment payloads made by the official @x402/core client with
 * @x402/evm's exact scheme, as an x402 MCP client makes them.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm';
import type { PrivateKeyAccount } from 'viem/accounts';
import { PAYMENT_META, paymentRequiredOf, WALLET_META } from '../../src/adapters/kit/mcp/x402-mcp.js';

/**
 * The protocol era a test client speaks: `modern` is 2026-07-28 (the per-request envelope, no
 * `initialize`; pinned, so a server that does not speak it fails the connect), `legacy` the 2025
 * `initialize` handshake (the newest 2025 revision the SDK offers, 2025-11-25), as v1 clients and
 * most agents' hosts still connect.
 */
export type McpEra = 'modern' | 'legacy';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * A connected client. It lists the tools first, as agents' clients do: the SDK then validates every
 * `structuredContent` against the tool's output schema, so a test that reads an answer checks it too.
 */
export async function connectMcp(url: string, headers: Record<string, string> = {}, era: McpEra = 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'launchpad-test-agent', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  await client.listTools();
  return client;
}

/** Signs the first offer of a PaymentRequired, as the official client does by default. */
export function payerFor(account: PrivateKeyAccount): (required: PaymentRequired) => Promise<PaymentPayload> {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }], spendControls: false });
  return (required) => client.createPaymentPayload(required);
}

export type ToolResult = CallToolResult & { _meta?: Record<string, unknown> };

export function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult> {
  return client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
}

/** The unpaid call (naming the wallet), its PaymentRequired, a payload for its first offer, and the paid call. */
export async function callPaid(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  account: PrivateKeyAccount,
): Promise<{ required: PaymentRequired; payload: PaymentPayload; result: ToolResult }> {
  const challenge = await call(client, name, args, { [WALLET_META]: account.address });
  const required = paymentRequiredOf(challenge) as PaymentRequired | null;
  if (!required) throw new Error(`${name} answered no PaymentRequired: ${JSON.stringify(challenge).slice(0, 500)}`);
  const payload = await payerFor(account)(required);
  const result = await call(client, name, args, { [PAYMENT_META]: payload });
  return { required, payload, result };
}

/** The error envelope a failed tool result carries after any x402 error (its last text item). */
export function envelopeOf(result: ToolResult): { success: false; error: { code: string; message: string; details?: Record<string, any> } } {
  const texts = (result.content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => JSON.parse(c.text!) as any);
  const envelope = texts.reverse().find((t) => t && t.success === false);
  if (!envelope) throw new Error(`no error envelope in ${JSON.stringify(result).slice(0, 500)}`);
  return envelope;
}
