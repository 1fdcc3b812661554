/**
 * Tokens as MCP resources (docs/agents.md "Resources, prompts and logging"): the template
 * `launchpad://token/{tokenId}`, read as the token's view (what `get_token` and `GET /tokens/:id`
 * answer) in JSON; `resources/list` pages through the tokens, newest first, as `list_tokens` does.
 * An agent host can attach a token to a conversation without a tool call.
 */
import { ProtocolErrorCode, type Resource, type Server } from '@modelcontextprotocol/server';
import type { Application } from '../../../app/application.js';
import { parseWith, tokenIdSchema } from '../../../app/kit/schemas.js';
import { getToken } from '../../../app/tokens/get-token.js';
import { listTokens } from '../../../app/tokens/list-tokens.js';
import type { TokenView } from '../../../app/kit/views.js';
import { protocolError, protocolFailure, RESOURCE_NOT_FOUND } from './protocol-error.js';

export const TOKEN_URI_TEMPLATE = 'launchpad://token/{tokenId}';
const TOKEN_URI = /^launchpad:\/\/token\/([^/?#]+)$/;
const PAGE = 50;
const JSON_TYPE = 'application/json';

export const tokenUri = (tokenId: string) => `launchpad://token/${tokenId}`;

function resourceOf(view: TokenView): Resource {
  return {
    uri: tokenUri(view.tokenId),
    name: view.symbol,
    title: `${view.name} (${view.symbol})`,
    description: `The token ${view.name} on ${view.network}: its curve, price, market cap and links, as get_token answers.`,
    mimeType: JSON_TYPE,
  };
}

export function registerTokenResources(server: Server, application: Application): void {
  const deps = application.deps;
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      {
        uriTemplate: TOKEN_URI_TEMPLATE,
        name: 'token',
        title: 'A launched token',
        description: 'A token by its id (tok_…, from list_tokens or create_token): its view as JSON, as get_token answers.',
        mimeType: JSON_TYPE,
      },
    ],
  }));
  server.setRequestHandler('resources/list', async (req) => {
    try {
      const page = await listTokens(deps, { limit: PAGE, ...(req.params?.cursor ? { cursor: req.params.cursor } : {}) });
      return { resources: page.items.map(resourceOf), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    } catch (e) {
      throw protocolFailure(e, ProtocolErrorCode.InvalidParams, application.logger);
    }
  });
  server.setRequestHandler('resources/read', async (req) => {
    const uri = req.params.uri;
    const id = TOKEN_URI.exec(uri)?.[1];
    if (id === undefined) throw protocolError(RESOURCE_NOT_FOUND, `No resource ${uri}: tokens are ${TOKEN_URI_TEMPLATE}.`, { uri });
    try {
      const view = await getToken(deps, parseWith(tokenIdSchema, decoded(id), 'tokenId'));
      return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(view) }] };
    } catch (e) {
      throw protocolFailure(e, RESOURCE_NOT_FOUND, application.logger);
    }
  });
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // not a token id either: refused as one
  }
}
