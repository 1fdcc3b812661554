/** GET /api/tokens/:id/holders. */
import type { AppDeps } from '../kit/deps.js';
import { holdersOf } from './holders-of.js';
import { loadToken } from '../trading/index.js';
import { indexerView } from '../kit/views.js';

export function listHolders(deps: Pick<AppDeps, 'uow'>, tokenId: string, limit: number) {
  return deps.uow.run(async (stores) => {
    const token = await loadToken(stores, tokenId);
    return {
      tokenId,
      items: await holdersOf(stores, token, limit),
      indexer: indexerView(token.network, await stores.transfers.cursor(token.network)),
    };
  });
}
