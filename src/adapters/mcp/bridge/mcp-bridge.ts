/**
 * The stdio bridge a local agent puts in its MCP config (docs/agents.md "The stdio bridge"): an
 * MCP server on stdio that forwards every call to the service's MCP endpoint, and pays the paid
 * ones with a local key — from a batch-settlement channel by @x402/evm's official scheme
 * (channel-payer.ts), or the official @x402/core client and @x402/evm's exact scheme over a viem
 * account — within a per-call cap and a budget for the run. A price over either is refused before
 * anything is signed. It names its wallet on every call, so the service offers only its network,
 * fills its own address where a free tool asks for a wallet, and signs a sell's token
 * authorization when the agent leaves it out. Resources (the tokens) and prompts are the service's,
 * passed through.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server, type CallToolRequest, type CallToolResult, type Tool, type Transport } from '@modelcontextprotocol/server';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { formatUsd } from '../../../domain/money.js';
import { isNetwork, NETWORKS } from '../../../domain/network.js';
import { PAYMENT_META, paymentRequiredOf, settlementOf, WALLET_META, type PaymentRequiredLike } from '../../kit/mcp/x402-mcp.js';
import { ChannelPayer } from './channel-payer.js';
import { SpendingLimits, type SpendingRefusal } from './spending-limits.js';

export interface McpBridgeOptions {
  /** The service's origin; its MCP endpoint is `${serviceUrl}/mcp`. */
  serviceUrl: string;
  walletKey: `0x${string}` | null;
  maxPaymentUsd: bigint;
  budgetUsd: bigint;
  /** Pays from a batch-settlement channel where the service offers one (channel-payer.ts), else by `exact`; absent: batch-settlement. */
  payScheme?: 'batch-settlement' | 'exact';
  version: string;
  /** One line for the operator (stderr: stdout carries only MCP). */
  log: (line: string) => void;
}

const WALLET_INFO: Tool = {
  name: 'wallet_info',
  title: "The bridge's wallet and budget",
  description:
    'The wallet this bridge pays with (your address: the creator, buyer and seller of your calls), the service it forwards to, and what it may still spend: at most maxPaymentUsd per call and budgetUsd for the run, in USDC. Free; answered by the bridge.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      wallet: { type: ['string', 'null'] },
      service: { type: 'string' },
      maxPaymentUsd: { type: 'string' },
      budgetUsd: { type: 'string' },
      spentUsd: { type: 'string' },
      remainingUsd: { type: 'string' },
    },
    required: ['wallet', 'service', 'maxPaymentUsd', 'budgetUsd', 'spentUsd', 'remainingUsd'],
  },
  annotations: { title: "The bridge's wallet and budget", readOnlyHint: true, openWorldHint: false },
};

/** Free tools that read a wallet: the bridge's own when the agent names none. */
const WALLET_ARGUMENT = new Set(['list_positions', 'prepare_sell']);

export class McpBridge {
  readonly account: PrivateKeyAccount | null;
  readonly limits: SpendingLimits;
  private readonly payer: x402Client | null;
  private readonly channels: ChannelPayer | null;
  private remote: Promise<Client> | null = null;
  private served: StdioServerHandle | null = null;

  constructor(private readonly options: McpBridgeOptions) {
    this.account = options.walletKey ? privateKeyToAccount(options.walletKey) : null;
    this.limits = new SpendingLimits(options.maxPaymentUsd, options.budgetUsd);
    // The official client's own cap on USDC backs ours: it too refuses a dearer payment before signing.
    this.payer = this.account
      ? x402Client.fromConfig({
          schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(this.account) }],
          spendControls: { maxAmountPerPayment: `$${formatUsd(options.maxPaymentUsd)}` },
        })
      : null;
    this.channels = this.account && options.payScheme !== 'exact' ? new ChannelPayer(this.account, options.budgetUsd, options.log) : null;
  }

  get endpoint(): string {
    return `${this.options.serviceUrl}/mcp`;
  }

  /** The settings, as the bridge prints them at start. */
  describe(): string[] {
    return [
      `service ${this.endpoint}`,
      this.account ? `wallet ${this.account.address} (WALLET_KEY)` : 'no WALLET_KEY: free tools only; paid tools answer their price unpaid',
      `pays in USDC at most $${formatUsd(this.limits.maxPerCall)} per call (MAX_PAYMENT_USD) and $${formatUsd(this.limits.budget)} for this run (BUDGET_USD)`,
      this.channels
        ? 'pays from a batch-settlement channel where offered: one deposit within BUDGET_USD, a voucher per call, the rest refunded at exit (PAY_SCHEME=exact: one authorization per call)'
        : 'pays one exact authorization per call (PAY_SCHEME)',
    ];
  }

  /**
   * Serves MCP on `transport` (stdio), in the era the agent opens with: the 2025 `initialize`
   * handshake or the 2026-07-28 per-request envelope (the SDK's serveStdio, one server per
   * connection).
   */
  serve(transport: Transport): void {
    this.served = serveStdio(() => this.server(), { transport, onerror: (e) => this.options.log(`MCP error on stdio: ${e.message}`) });
  }

  private server(): Server {
    const server = new Server(
      { name: 'launchpad-mcp', title: 'x402 token launchpad (local bridge)', version: this.options.version },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: this.instructions() },
    );
    server.setRequestHandler('tools/list', async () => ({ tools: await this.tools() }));
    server.setRequestHandler('tools/call', (req) => this.call(req.params));
    // Resources and prompts are the service's, passed through as they are (free: nothing to pay).
    // Only what the request asks is forwarded, not the host's _meta (the envelope is per connection).
    const cursor = (params?: { cursor?: string | undefined }) => (params?.cursor === undefined ? undefined : { cursor: params.cursor });
    server.setRequestHandler('resources/list', async (req) => (await this.client()).listResources(cursor(req.params)));
    server.setRequestHandler('resources/templates/list', async (req) => (await this.client()).listResourceTemplates(cursor(req.params)));
    server.setRequestHandler('resources/read', async (req) => (await this.client()).readResource({ uri: req.params.uri }));
    server.setRequestHandler('prompts/list', async (req) => (await this.client()).listPrompts(cursor(req.params)));
    server.setRequestHandler('prompts/get', async (req) =>
      (await this.client()).getPrompt({ name: req.params.name, ...(req.params.arguments ? { arguments: req.params.arguments } : {}) }),
    );
    return server;
  }

  async close(): Promise<void> {
    await this.channels?.refundAll(this.options.serviceUrl);
    const served = this.served;
    this.served = null;
    await served?.close();
    const remote = this.remote;
    this.remote = null;
    if (remote) await (await remote.catch(() => null))?.close();
  }

  private instructions(): string {
    return [
      'A local bridge to an x402 token launchpad: create ERC-20 tokens on a bonding curve and trade them on Base.',
      'The bridge pays the paid tools from its own wallet (wallet_info names it and what is left to spend); you never sign or pay yourself.',
      'Read tools are free. Amounts are decimal strings. To sell, call token_sell without tokenAuthorization: the bridge prepares and signs it.',
      'A paid answer with status "pending" is not final: call get_payment, never pay again.',
      "Each token is also a resource, launchpad://token/{tokenId}; the prompts launch_token and trade_within_budget are the service's.",
    ].join('\n');
  }

  private client(): Promise<Client> {
    if (!this.remote) {
      const connecting = (async () => {
        // The service's own era (2026-07-28 from a v2 service), else the 2025 handshake of an older one.
        const client = new Client({ name: 'launchpad-mcp', version: this.options.version }, { versionNegotiation: { mode: 'auto' } });
        await client.connect(new StreamableHTTPClientTransport(new URL(this.endpoint)));
        return client;
      })();
      // A service that is down now may be up at the next call.
      connecting.catch(() => {
        if (this.remote === connecting) this.remote = null;
      });
      this.remote = connecting;
    }
    return this.remote;
  }

  private async tools(): Promise<Tool[]> {
    const { tools } = await (await this.client()).listTools();
    return [...tools.map((t) => this.adapt(t)), WALLET_INFO];
  }

  /** A service tool as the bridge offers it: what the bridge fills in is optional, and paid tools say who pays. */
  private adapt(tool: Tool): Tool {
    const schema = structuredClone(tool.inputSchema) as Tool['inputSchema'];
    const optional = (name: string, note: string) => {
      if (!schema.required?.includes(name)) return;
      schema.required = schema.required.filter((r) => r !== name);
      const property = schema.properties?.[name] as { description?: string } | undefined;
      if (property) property.description = [property.description, note].filter(Boolean).join('; ');
    };
    let description = tool.description ?? '';
    if (this.account && WALLET_ARGUMENT.has(tool.name)) optional('wallet', "omit it: the bridge's wallet");
    if (this.account && tool.name === 'token_sell') {
      optional('tokenAuthorization', 'omit it: the bridge prepares and signs it with its wallet');
      description += ' Through this bridge, omit tokenAuthorization: the bridge signs it.';
    }
    if (tool.description?.includes('Paid with x402')) {
      description += this.account
        ? ` This bridge pays it from ${this.account.address}: at most $${formatUsd(this.limits.maxPerCall)} per call, $${formatUsd(this.limits.budget)} per run.`
        : ' This bridge has no WALLET_KEY: the call answers its price unpaid.';
    }
    return { ...tool, description, inputSchema: schema };
  }

  async call(params: CallToolRequest['params']): Promise<CallToolResult> {
    if (params.name === WALLET_INFO.name) return this.walletInfo();
    const client = await this.client();
    const args = { ...(params.arguments ?? {}) };
    const given = (params._meta ?? {}) as Record<string, unknown>;
    if (this.account && WALLET_ARGUMENT.has(params.name) && args.wallet === undefined) args.wallet = this.account.address;
    if (params.name === 'token_sell' && args.tokenAuthorization === undefined) {
      const signed = await this.signSell(client, args);
      if (!signed.ok) return signed.result;
      args.tokenAuthorization = signed.authorization;
    }
    // An agent that pays for itself (its own x402 payment in _meta) is only forwarded.
    const meta: Record<string, unknown> = {};
    for (const key of [PAYMENT_META, WALLET_META]) if (given[key] !== undefined) meta[key] = given[key];
    if (this.account && meta[WALLET_META] === undefined) meta[WALLET_META] = this.account.address;
    const forward = (m: Record<string, unknown>) => client.callTool({ name: params.name, arguments: args, _meta: m });

    const first = await forward(meta);
    const required = paymentRequiredOf(first);
    if (!required || meta[PAYMENT_META] !== undefined || !this.payer) return first;
    return this.pay(params.name, required, (payload) => forward({ ...meta, [PAYMENT_META]: payload }));
  }

  /** Pays one 402 within the limits, or refuses it without signing. */
  private async pay(tool: string, required: PaymentRequiredLike, retry: (payload: unknown) => Promise<CallToolResult>): Promise<CallToolResult> {
    const batch = this.channels?.offer(required);
    const offer = batch ?? usdcOffer(required);
    if (!offer) return refusal(tool, { code: 'NO_USDC_OFFER', message: 'The service offered no USDC payment this bridge can make: not paid, nothing signed.', details: {} });
    const reservation = this.limits.reserve(BigInt(offer.amount));
    if ('code' in reservation) {
      this.options.log(`refused ${tool}: ${reservation.message}`);
      return refusal(tool, reservation);
    }
    let result: CallToolResult;
    try {
      result = batch ? await this.payByVoucher(required, batch, retry) : await retry(await this.payer!.createPaymentPayload({ ...(required as PaymentRequired), accepts: [offer] }));
    } catch (e) {
      // Signed and maybe sent: the money may have moved, so it stays spent.
      reservation.keep();
      throw e;
    }
    // An error with no settlement was refused before any money moved (nothing charged).
    const settlement = settlementOf(result);
    if (result.isError && !settlement) reservation.release();
    else reservation.keep();
    const paid = !(result.isError && !settlement);
    this.options.log(`${paid ? 'paid' : 'not charged'} ${tool}: $${formatUsd(reservation.amount)} USDC on ${offer.network}; spent $${formatUsd(this.limits.spent)} of $${formatUsd(this.limits.budget)}`);
    const note = paid
      ? `The bridge paid $${formatUsd(reservation.amount)} USDC on ${offer.network} from ${this.account!.address}${batch ? ' by a voucher on its batch-settlement channel' : settlement?.transaction ? ` (transaction ${settlement.transaction})` : ''}; $${formatUsd(this.limits.remaining)} of the $${formatUsd(this.limits.budget)} budget left.`
      : 'The service refused the payment; nothing was charged.';
    return { ...result, content: [...result.content, { type: 'text', text: note }] };
  }

  /** A call paid from the channel; once more after the scheme's corrective 402 (the channel's books taken up). */
  private async payByVoucher(required: PaymentRequiredLike, offer: PaymentRequirements, retry: (payload: unknown) => Promise<CallToolResult>): Promise<CallToolResult> {
    for (let attempt = 0; ; attempt++) {
      const payment = await this.channels!.pay(required, offer);
      const result = await retry(payment);
      const again = await this.channels!.answered(offer, payment, settlementOf(result) as { success: boolean; extra?: Record<string, unknown> } | null, paymentRequiredOf(result));
      if (!again || attempt > 0) return result;
    }
  }

  /** A sell's token authorization: prepared by the service for the bridge's wallet, signed with its key. */
  private async signSell(client: Client, args: Record<string, unknown>): Promise<{ ok: true; authorization: Record<string, string> } | { ok: false; result: CallToolResult }> {
    if (!this.account) {
      const message = 'token_sell needs tokenAuthorization (prepare_sell, then sign its typedData), or a WALLET_KEY for the bridge to sign it.';
      return { ok: false, result: refusal('token_sell', { code: 'NO_WALLET', message, details: {} }) };
    }
    const prepared = await client.callTool({ name: 'prepare_sell', arguments: { tokenId: args.tokenId, tokens: args.tokens, wallet: this.account.address } });
    if (prepared.isError) return { ok: false, result: prepared };
    const { typedData, tokenAuthorization } = prepared.structuredContent as {
      typedData: { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, string> };
      tokenAuthorization: Record<string, string>;
    };
    const m = typedData.message;
    const signature = await this.account.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) },
    });
    return { ok: true, authorization: { ...tokenAuthorization, signature } };
  }

  private walletInfo(): CallToolResult {
    const info = {
      wallet: this.account?.address ?? null,
      service: this.endpoint,
      maxPaymentUsd: formatUsd(this.limits.maxPerCall),
      budgetUsd: formatUsd(this.limits.budget),
      spentUsd: formatUsd(this.limits.spent),
      remainingUsd: formatUsd(this.limits.remaining),
    };
    return { structuredContent: info, content: [{ type: 'text', text: JSON.stringify(info) }] };
  }
}

/** The first USDC offer on a network of the service: its amount is micro-USD. (EURC would need a price the bridge does not have.) */
function usdcOffer(required: PaymentRequiredLike): PaymentRequirements | undefined {
  return (required.accepts as PaymentRequirements[]).find(
    (a) => a.scheme === 'exact' && isNetwork(a.network) && a.asset.toLowerCase() === NETWORKS[a.network].assets.USDC.address.toLowerCase() && /^\d+$/.test(a.amount),
  );
}

/** The bridge's own refusal, in the service's error envelope: an error the agent reads, nothing signed. */
function refusal(tool: string, r: SpendingRefusal | { code: string; message: string; details: Record<string, string> }): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ success: false, error: { code: r.code, message: r.message, details: { tool, ...r.details } } }) }],
  };
}
