/**
 * GET /api/tokens/:id/metadata.json: the document wallets, explorers and token lists read for a
 * token (name, symbol, description, image, external_url, links), with where it lives on chain.
 */
import { NETWORKS } from '../../domain/network.js';
import { linkUrls, type TokenLinks } from '../../domain/token.js';
import type { AppDeps } from '../kit/deps.js';
import { loadToken } from '../trading/index.js';

export interface TokenMetadataDocument {
  name: string;
  symbol: string;
  description: string;
  image: string | null;
  /** The token's own site, when it named one. */
  external_url: string | null;
  decimals: 18;
  chainId: number;
  address: string | null;
  links: TokenLinks;
}

export async function getTokenMetadata(deps: Pick<AppDeps, 'uow'>, tokenId: string): Promise<TokenMetadataDocument> {
  const token = await deps.uow.run((stores) => loadToken(stores, tokenId));
  const links = linkUrls(token.links);
  return {
    name: token.name,
    symbol: token.symbol,
    description: token.description ?? '',
    image: token.imageUrl,
    external_url: links.website,
    decimals: 18,
    chainId: NETWORKS[token.network].chainId,
    address: token.address,
    links,
  };
}
