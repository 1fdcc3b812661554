/**
 * GET /llms.txt (the llms.txt format: a title, a one-paragraph summary, then sections of links):
 * what the service is, how to pay, the MCP tools and the HTTP endpoints, generated from the same
 * tables the service runs on (the agent tools, the paid entrypoints), so it cannot drift.
 */
import { pathParams, type AnyRead } from '../../../app/kit/catalogue/operation.js';
import { entrypointPaths, type AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import type { Settings } from '../../../app/kit/settings.js';
import { PAYMENT_META, PAYMENT_RESPONSE_META, WALLET_META } from '../../kit/mcp/x402-mcp.js';

/** A read as llms.txt shows it: its path with the input fields it fills, and the query it needs (`/api/quote?tokenId&side`). */
function shownPath(op: AnyRead): string {
  const params = pathParams(op.http);
  const path = op.http.path.replace(/:(\w+)/g, (_, name: string) => `{${op.http.params?.[name] ?? name}}`);
  const fromPath = new Set(params.map(([, field]) => field));
  const required = ((op.inputSchema.toJSONSchema({ io: 'input' }) as { required?: string[] }).required ?? []).filter((f) => !fromPath.has(f));
  if (op.http.method === 'post') return path; // its input is the JSON body
  return required.length > 0 ? `${path}?${required.join('&')}` : path;
}

/** Routes that are no operation of the catalogue, and llms.txt names. */
const OTHER_READS: readonly [path: string, what: string][] = [['/api/events', 'Server-Sent Events: token.created, trade.executed, …']];

export interface LlmsCatalogue {
  reads: readonly AnyRead[];
  entrypoints: Iterable<AnyEntrypoint>;
}

/** The MCP endpoint, when the service serves one: its path and its tools' lines (made by the MCP adapter). */
export interface LlmsMcp {
  path: string;
  toolLines: string[];
}

export function llmsTxt(origin: string, mcp: LlmsMcp | null, { reads, entrypoints }: LlmsCatalogue, settings: Settings): string {
  const link = (path: string) => `${origin}${path}`;
  const lines = [
    '# x402 token launchpad',
    '',
    '> Create ERC-20 tokens on a bonding curve and trade them, paying per call with x402 in USDC or EURC on Base (eip155:8453) or Base Sepolia (eip155:84532). No accounts and no API keys: the wallet that pays is the caller — the creator, the buyer, the seller. Reads are free, within a budget of requests per client (100 a minute by default).',
    '',
    'How to pay: call a paid operation without payment to get its price as an x402 `PaymentRequired` (HTTP: status 402 and the `PAYMENT-REQUIRED` header; MCP: a tool result with `isError: true` and the PaymentRequired in `structuredContent`). Sign one offer — an EIP-3009 authorization of exactly that amount to `payTo` — and repeat the same call with the payment (HTTP: `PAYMENT-SIGNATURE`, or an x402 v1 client\'s `X-PAYMENT` answered with `X-PAYMENT-RESPONSE`; MCP: `_meta["' +
      PAYMENT_META +
      '"]`). The answer carries the settlement (`PAYMENT-RESPONSE`; `_meta["' +
      PAYMENT_RESPONSE_META +
      '"]`). The network follows the paying wallet: one with Base mainnet history pays on eip155:8453, any other on eip155:84532; name your wallet first (`X-Wallet-Address`; `_meta["' +
      WALLET_META +
      '"]`) and the offers are for its network only. The same payment sent again returns the first answer and is never charged twice. An answer "pending" is not final: poll the payment, never pay again.',
    '',
    'Calling often? Pay from a channel: every 402 also offers each price by the x402 `batch-settlement` scheme (`@x402/evm/batch-settlement/client`): one deposit (gasless: the facilitator submits it), then a signed cumulative voucher per call — no transaction per call, claimed in batches; `GET /entrypoints/<name>` with the official client\'s `refund(url)` returns what the channel holds beyond its charges; `GET /api/channels/{channelId}` shows it.',
    '',
    'Amounts are decimal strings (USD up to 6 decimals, tokens up to 18); what you pay rounds up, what you receive rounds down. To sell, get the typed data to sign (`prepare_sell`, or `GET /api/tokens/{tokenId}/sell-authorization`), sign it with the wallet, and send its `tokenAuthorization` with the signature to `token_sell`.',
    '',
  ];
  if (mcp) {
    const mcpPath = mcp.path;
    lines.push(
      '## MCP',
      '',
      `- [MCP endpoint](${link(mcpPath)}): Streamable HTTP (stateless, JSON answers); paid tools use the x402 MCP transport`,
      `- [Server card](${link(`${mcpPath}/server-card`)}): the MCP Server Card (also at /.well-known/mcp/server-card.json, listed in /.well-known/mcp/catalog.json)`,
      `- [mcp.json](${link('/.well-known/mcp.json')}): the card with every tool, its price and how to pay`,
      '- Local agents (Claude Desktop, Cursor): the stdio bridge `launchpad-mcp` forwards to this service and pays with a local key within a per-call cap and a budget (BASE_URL, WALLET_KEY, MAX_PAYMENT_USD, BUDGET_USD)',
      '',
      '## Tools',
      '',
      ...mcp.toolLines,
      '',
    );
  }
  lines.push(
    '## HTTP API',
    '',
    ...[...entrypoints].map((ep) => {
      const price = ep.price(settings);
      return `- [POST ${entrypointPaths(ep)[0]}](${link(entrypointPaths(ep)[0]!)}): ${price.startsWith('=') ? `price ${price}` : `$${price}`} — ${ep.description}`;
    }),
    ...[...reads.map((op): [string, string, string] => [op.http.method === 'post' ? 'POST' : 'GET', shownPath(op), op.summary]), ...OTHER_READS.map(([p, w]): [string, string, string] => ['GET', p, w])].map(
      ([method, path, what]) => `- [${method} ${path}](${link(path.split('?')[0]!)}): free — ${what}`,
    ),
    '',
    '## Docs',
    '',
    `- [OpenAPI 3.1](${link('/api/openapi.json')}): every route, generated from the schemas the service validates with`,
    `- [Paid entrypoints](${link('/entrypoints')}): prices and JSON Schemas`,
    `- [x402 discovery](${link('/.well-known/x402')}): every paid resource and MCP tool with its Bazaar metadata`,
    '',
    '## Optional',
    '',
    `- [Version](${link('/api/version')}): API and service versions`,
    `- [Health](${link('/health')}): the service's dependencies`,
    '',
  );
  return lines.join('\n');
}
