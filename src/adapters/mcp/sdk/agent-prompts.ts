/**
 * Prompts an agent host offers its user (docs/agents.md "Resources, prompts and logging"): "launch
 * a token" and "trade within a budget". Each is one user message that names the tools to call in
 * order and the rules that keep money safe — quote first, never pay above the budget, a pending
 * answer is polled with get_payment and never paid again. Arguments are checked as the tools check
 * theirs; a bad one is a JSON-RPC invalid-params error naming it.
 */
import { ProtocolErrorCode, type GetPromptResult, type Prompt, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Application } from '../../../app/application.js';
import { createTokenInput } from '../../../app/tokens/schemas.js';
import { parseWith, tokenIdSchema, usdString } from '../../../app/kit/schemas.js';
import { PAYMENT_META, WALLET_META } from '../../kit/mcp/x402-mcp.js';
import { protocolError, protocolFailure } from './protocol-error.js';
import { tokenUri } from './token-resources.js';

interface AgentPrompt {
  prompt: Prompt;
  args: z.ZodType;
  text: (args: Record<string, string | undefined>) => string;
}

const PAYING = `Paid tools answer first with the x402 PaymentRequired (isError, the price in its offers): check the price, sign one offer with the wallet and call the same tool again with the PaymentPayload in _meta["${PAYMENT_META}"]. Name the wallet in _meta["${WALLET_META}"] on the unpaid call so the offer is for its network. An answer with status "pending" is not final: call get_payment with its paymentId until it is APPLIED, REFUNDED or FAILED, and never pay again for it.`;

const PROMPTS: AgentPrompt[] = [
  {
    prompt: {
      name: 'launch_token',
      title: 'Launch a token',
      description: 'Create an ERC-20 token on the bonding curve, paying the create price with x402, and follow its deployment.',
      arguments: [
        { name: 'name', description: 'the token name, e.g. "Moon Cat"', required: true },
        { name: 'symbol', description: 'the ticker, e.g. "MCAT"', required: true },
        { name: 'description', description: 'one or two sentences about the token', required: false },
        { name: 'initialBuyUsd', description: "the creator's own first buy in USD, paid with the create (decimal string)", required: false },
      ],
    },
    // What create_token takes, so a prompt never suggests a call the tool refuses for its shape.
    args: createTokenInput.pick({ name: true, symbol: true, description: true, initialBuyUsd: true }),
    text: (a) =>
      [
        `Launch a token named "${a.name}" with the symbol ${a.symbol}${a.description ? ` and the description "${a.description}"` : ''}${a.initialBuyUsd ? `, with a first buy of $${a.initialBuyUsd}` : ''}.`,
        `1. Call get_prices if you need the USD prices of the payment assets; call create_token with ${JSON.stringify({ name: a.name, symbol: a.symbol, ...(a.description ? { description: a.description } : {}), ...(a.initialBuyUsd ? { initialBuyUsd: a.initialBuyUsd } : {}) })}.`,
        `2. ${PAYING}`,
        '3. The answer names the tokenId. Read the token (get_token, or the resource launchpad://token/<tokenId>) until it is deployed on chain, and tell me its id, its network and its price.',
      ].join('\n'),
  },
  {
    prompt: {
      name: 'trade_within_budget',
      title: 'Trade within a budget',
      description: 'Buy (or sell) a token without spending more than a USD budget over all calls, quoting before paying.',
      arguments: [
        { name: 'tokenId', description: 'the token (tok_…, from list_tokens)', required: true },
        { name: 'budgetUsd', description: 'the most USD to spend in all, fees and prices included (decimal string)', required: true },
        { name: 'side', description: '"buy" (default) or "sell"', required: false },
      ],
    },
    args: z.strictObject({ tokenId: tokenIdSchema, budgetUsd: usdString('budget'), side: z.enum(['buy', 'sell']).optional() }),
    text: (a) =>
      [
        `${a.side === 'sell' ? 'Sell' : 'Buy'} the token ${a.tokenId} (resource ${tokenUri(a.tokenId!)}) spending at most $${a.budgetUsd} in all: every paid call's price counts against it.`,
        `1. Read the token (get_token) and quote first (get_quote with side "${a.side ?? 'buy'}"); say what the quote gives and costs before paying anything.`,
        a.side === 'sell'
          ? '2. To sell: prepare_sell, sign its typedData with the wallet, then token_sell with its tokenAuthorization and the signature; the sell price is paid like any paid call.'
          : `2. Buy with token_buy_usd and a usdAmount that leaves the sell price aside; never above what remains of $${a.budgetUsd}.`,
        `3. ${PAYING} Before signing, check that the offer's amount (in the asset's smallest units) is within what remains of the budget; if it is not, stop and say why.`,
        '4. Report what was spent, what was received, and the payment ids.',
      ].join('\n'),
  },
];

export function registerAgentPrompts(server: Server, application: Application): void {
  const byName = new Map(PROMPTS.map((p) => [p.prompt.name, p]));
  server.setRequestHandler('prompts/list', () => ({ prompts: PROMPTS.map((p) => p.prompt) }));
  server.setRequestHandler('prompts/get', (req): GetPromptResult => {
    const found = byName.get(req.params.name);
    if (!found) throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}. prompts/list names every prompt.`);
    let args: Record<string, string | undefined>;
    try {
      args = parseWith(found.args, req.params.arguments ?? {}) as Record<string, string | undefined>;
    } catch (e) {
      throw protocolFailure(e, ProtocolErrorCode.InvalidParams, application.logger);
    }
    return {
      description: found.prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: found.text(args) } }],
    };
  });
}
